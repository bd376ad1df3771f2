"""The secrets gate's rules: every kind of credential it knows (``KINDS``) and the
detectors that find them, most specific first (``DETECTORS``).

The token formats live in ``tokens``, the shapes judged in context in ``forms``, the
named assignments in ``keys``, the shared placeholder policy in ``policy``;
``lore.secrets.gate`` runs them (its engine and public API).
"""

from __future__ import annotations

import re

from lore.secrets.forms import FORMS
from lore.secrets.keys import ASSIGNMENTS
from lore.secrets.policy import (
    TOKEN_CLASS,
    Detector,
    Hit,
    detectors,
    fake_token,
    is_placeholder,
    lazy,
)
from lore.secrets.tokens import TOKENS, WEBHOOKS

# rule id -> kind. Stable ids: callers, tests and --json output rely on them; the table
# in LORE_CONTRACT.md §7.9 lists them in this order (a test checks it).
KINDS: dict[str, str] = {
    # keys and key files
    "private-key": "private key block",
    "encoded-private-key": "base64-encoded private key",
    "putty-key": "PuTTY private key",
    "age-key": "age secret key",
    # cloud providers
    "aws-access-key": "AWS access key ID",
    "aws-secret-key": "AWS secret access key",
    "aws-bedrock-key": "Amazon Bedrock API key",
    "google-api-key": "Google API key",
    "google-oauth-secret": "Google OAuth client secret",
    "google-oauth-token": "Google OAuth access or refresh token",
    "firebase-fcm-key": "Firebase Cloud Messaging server key",
    "azure-key": "Azure storage or service key",
    "azure-ad-secret": "Azure AD (Entra ID) client secret",
    "azure-sas-token": "Azure shared access signature",
    "alibaba-key": "Alibaba Cloud AccessKey ID",
    "tencent-key": "Tencent Cloud SecretId",
    "yandex-key": "Yandex Cloud API key",
    "digitalocean-token": "DigitalOcean token",
    "cloudflare-ca-key": "Cloudflare Origin CA key",
    "heroku-key": "Heroku API key",
    "fly-token": "Fly.io token",
    "netlify-token": "Netlify access token",
    "render-key": "Render API key",
    "openshift-token": "OpenShift user token",
    # source hosting, CI, registries
    "github-token": "GitHub token",
    "gitlab-token": "GitLab token",
    "atlassian-token": "Atlassian or Bitbucket API token",
    "dockerhub-token": "Docker Hub access token",
    "registry-auth": "registry credentials (docker config.json, .npmrc)",
    "npm-token": "npm access token",
    "pypi-token": "PyPI API token",
    "rubygems-token": "RubyGems API key",
    "nuget-key": "NuGet API key",
    "jfrog-token": "JFrog Artifactory token",
    "sonar-token": "SonarQube or SonarCloud token",
    "buildkite-token": "Buildkite API token",
    "circleci-token": "CircleCI personal token",
    "pulumi-token": "Pulumi access token",
    "postman-key": "Postman API key",
    "linear-key": "Linear API key",
    "infracost-token": "Infracost API token",
    "readme-token": "ReadMe API key",
    "terraform-token": "Terraform Cloud or Enterprise token",
    # secrets managers
    "vault-token": "HashiCorp Vault token",
    "doppler-token": "Doppler token",
    "onepassword-token": "1Password service account token or secret key",
    # monitoring
    "new-relic-key": "New Relic API or license key",
    "grafana-token": "Grafana token or API key",
    "sentry-token": "Sentry auth token",
    "dynatrace-token": "Dynatrace API token",
    # messaging and e-mail
    "slack-token": "Slack token",
    "slack-webhook": "Slack webhook URL",
    "discord-token": "Discord bot token",
    "discord-webhook": "Discord webhook URL",
    "teams-webhook": "Microsoft Teams webhook URL",
    "telegram-bot-token": "Telegram bot token",
    "twilio-key": "Twilio API key",
    "twilio-auth-token": "Twilio account SID with its auth token",
    "sendgrid-key": "SendGrid API key",
    "mailgun-key": "Mailgun API key",
    "mailchimp-key": "Mailchimp API key",
    "brevo-key": "Brevo (Sendinblue) API key",
    "resend-key": "Resend API key",
    # payments and commerce
    "stripe-key": "Stripe secret key",
    "shopify-token": "Shopify access token or shared secret",
    "square-token": "Square access token or OAuth secret",
    "paypal-token": "PayPal Braintree access token",
    "flutterwave-key": "Flutterwave secret key",
    "plaid-token": "Plaid access token",
    "shippo-token": "Shippo API token",
    "duffel-token": "Duffel API token",
    "easypost-token": "EasyPost API key",
    # AI providers
    "anthropic-key": "Anthropic API key",
    "openai-key": "OpenAI API key",
    "huggingface-token": "Hugging Face token",
    "groq-key": "Groq API key",
    "openrouter-key": "OpenRouter API key",
    "perplexity-key": "Perplexity API key",
    "xai-key": "xAI API key",
    "replicate-token": "Replicate API token",
    "langsmith-key": "LangSmith API key",
    "pinecone-key": "Pinecone API key",
    # databases and back ends
    "databricks-token": "Databricks token",
    "supabase-key": "Supabase access token or secret key",
    "planetscale-token": "PlanetScale token or password",
    "prefect-token": "Prefect API key",
    # productivity and SaaS
    "notion-token": "Notion integration token",
    "airtable-token": "Airtable personal access token",
    "hubspot-token": "HubSpot private app token",
    "figma-token": "Figma personal access token",
    "typeform-token": "Typeform personal token",
    "contentful-token": "Contentful management token",
    "launchdarkly-key": "LaunchDarkly SDK key",
    "adobe-secret": "Adobe client secret",
    "frameio-token": "Frame.io API token",
    "tailscale-key": "Tailscale auth or API key",
    "adafruit-key": "Adafruit IO key",
    "mapbox-token": "Mapbox secret token",
    "dropbox-token": "Dropbox access token",
    "facebook-token": "Facebook access token",
    "twitter-token": "Twitter (X) bearer token",
    # generic shapes
    "jwt": "JSON Web Token",
    "url-credentials": "password in a URL",
    "netrc-password": ".netrc password",
    "pgpass-password": ".pgpass password",
    "cli-password": "password on a command line",
    "authorization-header": "credential in an Authorization header",
    "password-assignment": "hard-coded password",
    "secret-assignment": "hard-coded secret or token",
}


_B64_RUN = lazy(r"[A-Za-z0-9+/]{40}")
# The base64 lines after a PEM header with no footer: one per line break, or (where
# whitespace was collapsed) whole 40+ character chunks separated by spaces.
_PEM_LINES = lazy(r"(?:(?:\r?\n|\\r?\\n)[A-Za-z0-9+/=]{1,128}|[ \t]+[A-Za-z0-9+/]{40,128}={0,2})+")


def _private_key(m: re.Match[str], text: str) -> Hit | None:
    """A PEM header counts only when key material follows; the span runs to the footer."""
    body = m.start("body")
    if not _B64_RUN.search(text, body, min(m.end("body"), body + 400)):
        return None  # a bare header, quoted in prose or docs
    if m.group("footer"):
        return m.start(), m.end(), "private-key"
    lines = _PEM_LINES.match(text, body)  # no footer: the base64 lines that follow
    return m.start(), lines.end() if lines else body, "private-key"


def _stripe(m: re.Match[str], text: str) -> Hit | None:
    if fake_token(m.group()):
        return None
    start = m.start() - (0 if m.group().startswith("whsec_") else 1)  # the "s" of sk_
    return start, m.end(), "stripe-key"


def _openai_or_anthropic(m: re.Match[str], text: str) -> Hit | None:
    if fake_token(m.group()):
        return None
    return m.start(), m.end(), "anthropic-key" if m.group("ant") else "openai-key"


def _azure(m: re.Match[str], text: str) -> Hit | None:
    value = m.group("v")
    if fake_token(value) or is_placeholder(value):
        return None
    return m.start("v"), m.end("v"), "azure-key"


def _url_password(m: re.Match[str], text: str) -> Hit | None:
    user, password = m.group(1), m.group(2)
    if password == user or is_placeholder(password):
        return None  # postgres:postgres@  user:password@  :${PASS}@
    return m.start(2), m.end(2), "url-credentials"


def _stripe_pattern(mode: str) -> re.Pattern[str]:
    """Starts at ``k_<mode>_`` (a literal); the key itself at the "s" or "r" before it."""
    return lazy(
        rf"k_{mode}_(?<=[rs]k_{mode}_)(?<![A-Za-z0-9_][rs]k_{mode}_)"
        r"[A-Za-z0-9]{20,247}(?![A-Za-z0-9])"
    )


_PRIVATE_KEY = Detector(
    # The body stops at the next "-----" (the footer, or another header), so every
    # header scans only its own block: linear however many headers the text holds.
    (
        lazy(
            r"-----BEGIN (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
            r"(?P<body>(?:[^-]|-(?!----)){0,65536})(?P<footer>-----END [A-Z0-9 ]{1,60}-----)?"
        ),
    ),
    ("-----BEGIN ",),
    _private_key,
)

_SPECIAL: tuple[Detector, ...] = (
    Detector(
        (
            _stripe_pattern("live"),
            _stripe_pattern("test"),
            _stripe_pattern("prod"),
            lazy(r"whsec_(?<![A-Za-z0-9_]whsec_)[A-Za-z0-9]{24,128}(?![A-Za-z0-9])"),
        ),
        ("k_live_", "k_test_", "k_prod_", "whsec_"),
        _stripe,
        dense=True,
    ),
    Detector(
        (
            lazy(
                rf"sk-(?<!{TOKEN_CLASS}sk-)"
                r"(?:(?P<ant>ant-[A-Za-z0-9_-]{20,250})"
                r"|(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,300}"
                r"|[A-Za-z0-9]{20}[A-Za-z0-9_-]{0,300})(?![A-Za-z0-9_-])",
            ),
        ),
        ("sk-",),
        _openai_or_anthropic,
        dense=True,
    ),
    Detector(
        # Connection strings: "...;AccountKey=<base64>;..." (storage), SharedAccessKey (bus).
        (lazy(r"(?:Account|SharedAccess)Key=(?P<v>[A-Za-z0-9+/]{30,100}={0,2})"),),
        ("Key=",),
        _azure,
        dense=True,
    ),
)

_URL = Detector(
    (lazy(r"://([^\s:/?#@\"'<>]{0,128}):([^\s/@\"'<>]{1,256})@(?=[^\s@/])"),),
    ("://",),
    _url_password,
)

# Most specific first: a later detector never reports a span an earlier one claimed, so
# "token=ghp_..." is a GitHub token rather than a generic assignment, and the password
# of "https://user:ghp_...@host" is the GitHub token.
DETECTORS: tuple[Detector, ...] = (
    _PRIVATE_KEY,
    *detectors(WEBHOOKS, url=True),
    *detectors(TOKENS),
    *_SPECIAL,
    *FORMS,
    _URL,
    *ASSIGNMENTS,
)
