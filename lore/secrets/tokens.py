"""The fixed-format credentials: one row per token format (a literal prefix, the body that
follows, the characters that may not touch it), built into detectors by
``lore.secrets.policy.detectors``.

The formats were learnt from the providers' documentation and from maintained scanners'
rule sets (gitleaks, trufflehog, detect-secrets); each row is lore's own reading of them.
"""

from __future__ import annotations

from lore.secrets.policy import ALNUM_CLASS, WORD_CLASS, Token

_B64_CLASS = "[A-Za-z0-9+/=]"
_B64URL_CLASS = "[A-Za-z0-9+/=_-]"
_HEX32 = "[0-9a-f]{32}"
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _mixed(token: str) -> bool:
    """Letters and digits both: random bodies have them, words and names rarely do."""
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def _cased(token: str) -> bool:
    """Upper and lower case and a digit: what a random base62 body looks like."""
    return (
        any(c.isdigit() for c in token)
        and any(c.isupper() for c in token)
        and any(c.islower() for c in token)
    )


def _varied(token: str) -> bool:
    """At least ten distinct characters: not a run of one letter (``AAAA…``)."""
    return len(set(token)) >= 10


def _after(prefix: str, *options: str) -> tuple[str, ...]:
    return tuple(prefix + option for option in options)


# Rows in no particular order: every prefix is distinct, so no two rows claim one span.
TOKENS: tuple[Token, ...] = (
    # --- cloud providers
    Token(
        "aws-access-key",
        "A",
        "(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}",
        ALNUM_CLASS,
        ALNUM_CLASS,
        triggers=("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    Token("aws-bedrock-key", "ABSK", "[A-Za-z0-9+/]{109,269}={0,2}", ALNUM_CLASS, _B64_CLASS),
    Token("google-api-key", "AIza", "[A-Za-z0-9_-]{35}"),
    Token("google-oauth-secret", "GOCSPX-", "[A-Za-z0-9_-]{24,40}"),
    Token("google-oauth-token", "ya29.", r"[A-Za-z0-9_-]{20,2048}(?:\.[A-Za-z0-9_-]+)*"),
    Token("google-oauth-token", "1//0", "[A-Za-z0-9_-]{40,512}", "[A-Za-z0-9_/:-]"),
    Token(
        "firebase-fcm-key",
        ":APA91b",
        "[A-Za-z0-9_-]{100,400}",
        back="AAAA[A-Za-z0-9_-]{7}",
        back_width=11,
    ),
    Token(
        "azure-ad-secret",
        "Q~",
        "[A-Za-z0-9_~.-]{31,34}",
        "[A-Za-z0-9_~.-]",
        "[A-Za-z0-9_~.-]",
        back="[A-Za-z0-9_~.]{3}[0-9]",
        back_width=4,
    ),
    Token("alibaba-key", "LTAI", "[A-Za-z0-9]{12,20}", ALNUM_CLASS, ALNUM_CLASS),
    Token("tencent-key", "AKID", "[A-Za-z0-9]{32}", ALNUM_CLASS, ALNUM_CLASS),
    Token("yandex-key", "AQVN", "[A-Za-z0-9_-]{35,38}"),
    Token(
        "digitalocean-token",
        "do",
        "[opr]_v1_[a-f0-9]{64}",
        triggers=_after("do", "p_v1_", "o_v1_", "r_v1_"),
    ),
    Token("cloudflare-ca-key", "v1.0-", "[a-f0-9]{24}-[a-f0-9]{146}", "[A-Za-z0-9_.-]"),
    Token("heroku-key", "HRKU-", "[A-Za-z0-9_-]{40,100}"),
    Token("fly-token", "fo1_", "[A-Za-z0-9_-]{43}"),
    Token(
        "fly-token",
        "fm",
        "(?:1[ar]|2)_[A-Za-z0-9+/]{100,4000}={0,3}",
        end=_B64_CLASS,
        triggers=_after("fm", "1a_", "1r_", "2_"),
    ),
    Token("netlify-token", "nfp_", "[A-Za-z0-9]{36,40}"),
    Token("render-key", "rnd_", "[A-Za-z0-9]{32}", judge=_mixed),
    Token("openshift-token", "sha256~", "[A-Za-z0-9_-]{43}"),
    # --- source hosting, CI and package registries
    Token(
        "github-token",
        "gh",
        "[pousr]_[A-Za-z0-9]{36,251}",
        WORD_CLASS,
        WORD_CLASS,
        triggers=_after("gh", "p_", "o_", "u_", "s_", "r_"),
    ),
    Token("github-token", "github_pat_", "[A-Za-z0-9_]{22,242}", WORD_CLASS, WORD_CLASS),
    Token(
        "gitlab-token",
        "gl",
        r"(?:pat|dt|rt|ptt|soat|cbt|ft|imt|agent|oas|ffct)-[A-Za-z0-9_-]{20,300}"
        r"(?:\.[a-z0-9]{2,12}){0,2}",
        triggers=_after(
            "gl",
            "pat-",
            "dt-",
            "rt-",
            "ptt-",
            "soat-",
            "cbt-",
            "ft-",
            "imt-",
            "agent-",
            "oas-",
            "ffct-",
        ),
    ),
    Token("gitlab-token", "GR1348941", "[A-Za-z0-9_-]{20,64}"),
    Token(
        "atlassian-token",
        "AT",
        "(?:ATT|CTT)3[A-Za-z0-9_=-]{100,300}",
        end="[A-Za-z0-9_=-]",
        triggers=("ATATT3", "ATCTT3"),
    ),
    Token("atlassian-token", "ATBB", "[A-Za-z0-9]{28,40}", ALNUM_CLASS, ALNUM_CLASS),
    Token(
        "dockerhub-token",
        "dckr_",
        "(?:pat|oat)_[A-Za-z0-9_-]{27,64}",
        triggers=("dckr_pat_", "dckr_oat_"),
    ),
    Token("npm-token", "npm_", "[A-Za-z0-9]{36}", WORD_CLASS, WORD_CLASS),
    Token("pypi-token", "pypi-AgE", "[A-Za-z0-9_-]{50,1000}"),
    Token("rubygems-token", "rubygems_", "[a-f0-9]{48}"),
    Token("nuget-key", "oy2", "[a-z0-9]{43}", ALNUM_CLASS, ALNUM_CLASS, judge=_mixed),
    Token("jfrog-token", "AKCp", "[A-Za-z0-9]{69}", ALNUM_CLASS, ALNUM_CLASS),
    Token("jfrog-token", "cmVmdGtuOjAxOj", "[A-Za-z0-9]{40,80}", ALNUM_CLASS, ALNUM_CLASS),
    Token("sonar-token", "sq", "[pau]_[a-f0-9]{40}", triggers=("sqp_", "sqa_", "squ_")),
    Token("buildkite-token", "bkua_", "[a-f0-9]{40}"),
    Token("circleci-token", "CCIPAT_", "[A-Za-z0-9]{20,26}_[a-f0-9]{40}"),
    Token("pulumi-token", "pul-", "[a-f0-9]{40}"),
    Token("postman-key", "PMAK-", "[a-f0-9]{24}-[a-f0-9]{34}"),
    Token(
        "linear-key",
        "lin_",
        "(?:api_[A-Za-z0-9]{40}|oauth_[a-f0-9]{64})",
        triggers=("lin_api_", "lin_oauth_"),
    ),
    Token("infracost-token", "ico-", "[A-Za-z0-9]{32}", judge=_mixed),
    Token("readme-token", "rdme_", "[a-z0-9]{70}"),
    Token(
        "terraform-token",
        ".atlasv1.",
        "[A-Za-z0-9_=-]{60,70}",
        ALNUM_CLASS,
        "[A-Za-z0-9_=-]",
        back="[A-Za-z0-9]{14}",
        back_width=14,
    ),
    # --- secrets managers
    Token("vault-token", "hv", r"[sbr]\.[A-Za-z0-9_-]{24,400}", triggers=("hvs.", "hvb.", "hvr.")),
    # Vault's legacy service token: "s." and 24 letters and digits of both cases.
    Token(
        "vault-token",
        "s.",
        "[A-Za-z0-9]{24}",
        r"[A-Za-z0-9_.$/\\-]",
        judge=_cased,
        context=("vault",),
    ),
    Token(
        "doppler-token",
        "dp.",
        r"(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,44}",
        "[A-Za-z0-9_.-]",
        ALNUM_CLASS,
    ),
    Token("onepassword-token", "ops_eyJ", "[A-Za-z0-9+/]{200,4000}={0,3}", end=_B64_CLASS),
    Token(
        "onepassword-token",
        "A3-",
        "[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
        ALNUM_CLASS,
        ALNUM_CLASS,
    ),
    Token("age-key", "AGE-SECRET-KEY-1", "[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    # --- monitoring
    Token(
        "new-relic-key",
        "NR",
        "(?:AK-[A-Z0-9]{27}|II-[A-Za-z0-9_-]{32}|JS-[a-f0-9]{19})",
        triggers=("NRAK-", "NRII-", "NRJS-"),
    ),
    Token(
        "new-relic-key", "NRAL", "", ALNUM_CLASS, ALNUM_CLASS, back="[a-f0-9]{36}", back_width=36
    ),
    Token("grafana-token", "glsa_", "[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    Token("grafana-token", "glc_", "[A-Za-z0-9+/]{32,400}={0,3}", end=_B64_CLASS),
    Token("grafana-token", "eyJrIjoi", "[A-Za-z0-9+/]{50,400}={0,3}", end=_B64_CLASS),
    Token(
        "sentry-token",
        "sntry",
        "(?:s_[A-Za-z0-9+/=_-]{60,600}|u_[a-f0-9]{64})",
        end=_B64URL_CLASS,
        triggers=("sntrys_", "sntryu_"),
    ),
    Token("dynatrace-token", "dt0c01.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    # --- messaging and e-mail
    Token(
        "slack-token",
        "xox",
        "[abeoprs]-[0-9]{1,20}-[A-Za-z0-9-]{8,250}",
        end="[A-Za-z0-9-]",
    ),
    Token("slack-token", "xapp-", "[0-9]-[A-Za-z0-9]{6,20}-[0-9]{6,20}-[A-Za-z0-9]{20,200}"),
    Token("twilio-key", "SK", "[0-9a-f]{32}", ALNUM_CLASS, ALNUM_CLASS),
    Token("sendgrid-key", "SG.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    Token(
        "brevo-key",
        "x",
        "(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}",
        triggers=("xkeysib-", "xsmtpsib-"),
    ),
    Token(
        "mailchimp-key", "-us", "[0-9]{1,2}", ALNUM_CLASS, ALNUM_CLASS, back=_HEX32, back_width=32
    ),
    Token(
        "resend-key", "re_", "[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", WORD_CLASS, WORD_CLASS, judge=_mixed
    ),
    # --- payments and commerce
    Token(
        "shopify-token",
        "shp",
        "(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        triggers=_after("shp", "at_", "ca_", "pa_", "ss_"),
    ),
    Token(
        "square-token",
        "sq0",
        "(?:atp-[A-Za-z0-9_-]{22}|csp-[A-Za-z0-9_-]{43})",
        triggers=("sq0atp-", "sq0csp-"),
    ),
    Token("square-token", "EAAA", "[A-Za-z0-9_-]{56,64}"),
    Token(
        "paypal-token",
        "access_token$",
        r"(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
        ALNUM_CLASS,
        ALNUM_CLASS,
    ),
    Token("flutterwave-key", "FLWSECK", "(?:_TEST)?-[A-Za-z0-9]{32}-X"),
    Token(
        "plaid-token",
        "access-",
        f"(?:sandbox|development|production)-{_UUID}",
        ALNUM_CLASS,
        ALNUM_CLASS,
    ),
    Token("shippo-token", "shippo_", "(?:live|test)_[a-fA-F0-9]{40}"),
    Token("duffel-token", "duffel_", "(?:test|live)_[A-Za-z0-9_=-]{43}"),
    Token(
        "easypost-token",
        "EZ",
        "[AT]K[A-Za-z0-9]{54}",
        ALNUM_CLASS,
        ALNUM_CLASS,
        triggers=("EZAK", "EZTK"),
    ),
    # --- AI providers
    Token("huggingface-token", "hf_", "[A-Za-z]{34}", WORD_CLASS, WORD_CLASS),
    Token("huggingface-token", "api_org_", "[A-Za-z]{34}", WORD_CLASS, WORD_CLASS),
    Token("groq-key", "gsk_", "[A-Za-z0-9]{48,56}"),
    Token("openrouter-key", "sk-or-v1-", "[a-f0-9]{64}"),
    Token("perplexity-key", "pplx-", "[A-Za-z0-9]{40,64}"),
    Token("xai-key", "xai-", "[A-Za-z0-9]{60,100}", judge=_mixed),
    Token("replicate-token", "r8_", "[A-Za-z0-9]{37}", WORD_CLASS, WORD_CLASS),
    Token("langsmith-key", "lsv2_", "(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    Token("pinecone-key", "pcsk_", "[A-Za-z0-9]{4,10}_[A-Za-z0-9]{40,90}"),
    # --- databases and back ends
    Token("databricks-token", "dapi", "[a-f0-9]{32}(?:-[0-9])?", ALNUM_CLASS, ALNUM_CLASS),
    Token("supabase-key", "sbp_", "[a-f0-9]{40}"),
    Token("supabase-key", "sb_secret_", "[A-Za-z0-9_-]{20,100}"),
    Token(
        "planetscale-token",
        "pscale_",
        "(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}",
        end="[A-Za-z0-9_.=-]",
        triggers=_after("pscale_", "tkn_", "pw_", "oauth_"),
    ),
    Token("prefect-token", "pnu_", "[A-Za-z0-9]{36}"),
    # --- productivity and SaaS
    Token("notion-token", "ntn_", "[0-9]{11}[A-Za-z0-9]{35}"),
    Token("notion-token", "secret_", "[A-Za-z0-9]{43}", WORD_CLASS, WORD_CLASS, judge=_cased),
    Token("airtable-token", "pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}", ALNUM_CLASS, ALNUM_CLASS),
    Token("hubspot-token", "pat-", f"(?:na|eu|ap)[0-9]-{_UUID}"),
    Token("figma-token", "figd_", "[A-Za-z0-9_-]{40,80}"),
    Token("typeform-token", "tfp_", "[A-Za-z0-9_.=-]{40,80}", end="[A-Za-z0-9_.=-]"),
    Token("contentful-token", "CFPAT-", "[A-Za-z0-9_-]{43}"),
    Token("launchdarkly-key", "sdk-", _UUID),
    Token("adobe-secret", "p8e-", "[A-Za-z0-9]{32}", judge=_mixed),
    Token("frameio-token", "fio-u-", "[A-Za-z0-9_=-]{64}"),
    Token(
        "tailscale-key",
        "tskey-",
        "(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,20}-[A-Za-z0-9]{20,64}",
    ),
    Token("adafruit-key", "aio_", "[A-Za-z0-9]{28}", judge=_mixed),
    Token("mapbox-token", "sk.eyJ", r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", ALNUM_CLASS),
    Token(
        "dropbox-token",
        "sl.",
        r"(?:[A-Za-z]\.)?[A-Za-z0-9_-]{130,1400}",
        "[A-Za-z0-9_.-]",
        judge=_cased,
    ),
    Token("facebook-token", "EAA", "[A-Z][A-Za-z0-9]{90,400}", ALNUM_CLASS, ALNUM_CLASS),
    Token(
        "twitter-token",
        "A" * 21,
        "[A-Za-z0-9%]{40,120}",
        ALNUM_CLASS,
        "[A-Za-z0-9%]",
        judge=_varied,
    ),
    Token(
        "jwt",
        "eyJ",
        r"[A-Za-z0-9_-]{5,4000}\.eyJ[A-Za-z0-9_-]{5,8000}\.[A-Za-z0-9_-]{10,4000}",
    ),
)

# Webhook URLs: the secret is the whole URL, scheme and host included.
WEBHOOKS: tuple[Token, ...] = (
    Token(
        "slack-webhook",
        "hooks.slack.com/",
        r"(?:services|workflows|triggers)/[\w/+-]{20,400}",
        "[A-Za-z0-9_-]",
        "[A-Za-z0-9_/+-]",
    ),
    Token(
        "discord-webhook",
        "discord",
        r"(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,80}",
        triggers=("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"),
    ),
    Token(
        "teams-webhook",
        "webhook.office.com/webhookb2/",
        "[A-Za-z0-9@/_-]{60,400}",
        "[A-Za-z0-9_-]",
        "[A-Za-z0-9@/_-]",
    ),
)
