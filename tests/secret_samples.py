"""Fake credentials of every kind the secrets gate knows, and ordinary text it must pass.

Shared by the detector tests (tests/test_secrets.py) and the CLI table
(tests/reliability/test_secret_kinds.py). Every fake is assembled at runtime from
harmless pieces, so this file holds no literal token for a secret scanner to flag.
"""

from __future__ import annotations

import base64
import json

CHARS = "R8mN2kQ7vX4pL9sT3wY6bC1dF5gH0jK8mN2qZ7xVa3Ee9Uu4Oo1Ii6Bb5Cc7Dd2"  # 64, no "_" or "-"
HEX = "3f9a0c1b2d4e5f60718293a4b5c6d7e8"  # 32, never "00000"


def body(n: int) -> str:
    """``n`` random-looking letters and digits."""
    return (CHARS * (n // len(CHARS) + 1))[:n]


def hexs(n: int) -> str:
    return (HEX * (n // len(HEX) + 1))[:n]


def lower(n: int) -> str:
    return body(n).lower()


def upper(n: int) -> str:
    return body(n).upper()


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def uuid() -> str:
    h = hexs(32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def pem(label: str, *, footer: bool = True) -> str:
    begin, end = "-----BEGIN ", "-----END "
    lines = [begin + label + "-----", "MIIE" + body(60), body(64), body(64), body(20) + "=="]
    if footer:
        lines.append(end + label + "-----")
    return "\n".join(lines)


def join(*parts: str) -> str:
    """Parts glued together: keeps each fake from appearing whole in this file."""
    return "".join(parts)


BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l".upper()
DISCORD_ID = base64.b64encode(b"123456789012345678").decode()  # a bot's id: 18 digits
PUTTY = "\n".join(
    [
        "PuTTY-User-Key-File-3: ssh-ed25519",
        "Encryption: none",
        "Comment: deploy@ci",
        "Public-Lines: 2",
        "AAAAC3NzaC1lZDI1NTE5AAAAI" + body(40),
        body(20),
        "Private-Lines: 1",
        "AAAAI" + body(43),
        "Private-MAC: " + hexs(64),
    ]
)
KUBECONFIG = "\n".join(
    [
        "users:",
        "- name: admin",
        "  user:",
        "    client-certificate-data: " + b64(pem("CERTIFICATE").replace("PRIVATE ", "")),
        "    client-key-data: " + b64(pem("RSA PRIVATE KEY")),
    ]
)
DOCKER_CONFIG = json.dumps(
    {"auths": {"https://index.docker.io/v1/": {"auth": b64("deploy:" + "Zq7-" + body(20))}}}
)
SAS = join(
    "https://shop.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o&sp=r",
    "&se=2030-01-01T08:30:00Z&spr=https&sig=",
    body(43),
    "%3D",
)

# (rule, text): each text holds exactly one credential, found by that rule.
SAMPLES: list[tuple[str, str]] = [
    ("encoded-private-key", KUBECONFIG),
    ("encoded-private-key", "tls.key: " + b64(pem("PRIVATE KEY"))),
    ("putty-key", PUTTY),
    ("age-key", join("AGE-SECRET-KEY-1", (BECH32 * 2)[:58])),
    ("aws-bedrock-key", join("AWS_BEARER_TOKEN_BEDROCK ", "ABSK", body(120), "=")),
    ("google-oauth-secret", join("client secret ", "GOCSPX-", body(28))),
    ("google-oauth-token", join("access ", "ya29.", "a0AfH6SM", body(120))),
    ("google-oauth-token", join("refresh: ", "1//0", "g", body(80))),
    ("firebase-fcm-key", join("server key ", "AAAA", body(7), ":APA91b", body(134))),
    ("azure-ad-secret", join("AZURE_CLIENT_SECRET=", "abc8Q~", body(34))),
    ("azure-ad-secret", join('"clientSecret": "', "y7.8Q~", body(33), '"')),
    ("azure-sas-token", SAS),
    (
        "azure-sas-token",
        join("SharedAccessSignature sr=ns&sig=", body(43), "%3D&se=1893456000&skn=root"),
    ),
    ("alibaba-key", join("aliyun ", "LTAI", "5t", body(18))),
    ("tencent-key", join("AKID", body(32))),
    ("yandex-key", join("AQVN", body(36))),
    ("digitalocean-token", join("DO: ", "dop_v1_", hexs(64))),
    ("digitalocean-token", join("doo", "_v1_", hexs(64))),
    ("cloudflare-ca-key", join("v1.0-", hexs(24), "-", hexs(146))),
    ("heroku-key", join("HEROKU ", "HRKU-", "AA", body(58))),
    ("fly-token", join("fo1_", body(43))),
    ("netlify-token", join("nfp_", body(36))),
    ("render-key", join("rnd_", body(32))),
    ("openshift-token", join("oc login --token=", "sha256~", body(43))),
    ("atlassian-token", join("JIRA ", "ATATT3", "xFfGF0", body(180), "=", upper(8))),
    ("atlassian-token", join("bitbucket app password ", "ATBB", body(32))),
    ("dockerhub-token", join("docker login -u ci -p ", "dckr_pat_", body(27))),
    ("registry-auth", DOCKER_CONFIG),
    ("registry-auth", join("_auth=", b64("ci:" + "Zq7-" + body(16)))),
    ("rubygems-token", join("rubygems_", hexs(48))),
    ("nuget-key", join("nuget push -k ", "oy2", lower(43))),
    ("jfrog-token", join("AKCp", body(69))),
    ("sonar-token", join("SONAR ", "sqp_", hexs(40))),
    ("buildkite-token", join("bkua_", hexs(40))),
    ("circleci-token", join("CCIPAT_", body(22), "_", hexs(40))),
    ("pulumi-token", join("pul-", hexs(40))),
    ("postman-key", join("PMAK-", hexs(24), "-", hexs(34))),
    ("linear-key", join("lin_api_", body(40))),
    ("infracost-token", join("ico-", body(32))),
    ("readme-token", join("rdme_", lower(70))),
    ("terraform-token", join("TFE ", body(14), ".atlasv1.", body(67))),
    ("vault-token", join("VAULT ", "hvs.", body(95))),
    ("vault-token", join("vault login ", "s.", body(24))),
    ("doppler-token", join("dp.pt.", body(43))),
    ("doppler-token", join("dp.st.prd.", body(40))),
    ("onepassword-token", join("OP_SERVICE_ACCOUNT ", "ops_eyJ", body(250))),
    (
        "onepassword-token",
        join("A3-", upper(6), "-", upper(11), "-", upper(5), "-", upper(5), "-", upper(5)),
    ),
    ("new-relic-key", join("NRAK-", upper(27))),
    ("new-relic-key", join("license ", hexs(36), "NRAL")),
    ("grafana-token", join("glsa_", body(32), "_", hexs(8))),
    ("grafana-token", join("glc_", body(60), "==")),
    ("grafana-token", join("eyJrIjoi", body(70))),
    ("sentry-token", join("sntryu_", hexs(64))),
    ("sentry-token", join("sntrys_", "eyJpYXQiOjE2ODQ", body(80), "_", body(43))),
    ("dynatrace-token", join("dt0c01.", upper(24), ".", upper(64))),
    ("slack-token", join("xapp", "-1-A0123BCDE-1234567890123-", hexs(64))),
    ("discord-token", join('client.run("', DISCORD_ID, ".", body(6), ".", body(38), '")')),
    ("discord-webhook", join("https://discord.com/api/webhooks/123456789012345678/", body(68))),
    (
        "teams-webhook",
        join(
            "https://acme.webhook.office.com/webhookb2/",
            uuid(),
            "@",
            uuid(),
            "/IncomingWebhook/",
            hexs(32),
            "/",
            uuid(),
        ),
    ),
    ("telegram-bot-token", join("bot token 123456789", ":AA", body(33))),
    (
        "telegram-bot-token",
        join("https://api.telegram.org/bot987654321", ":AA", body(33), "/getMe"),
    ),
    ("twilio-auth-token", join('Client("AC', hexs(32), '", "', hexs(32)[::-1], '")')),
    ("mailgun-key", join("mailgun api:", "key-", hexs(32))),
    ("mailgun-key", join("Mailgun sending key ", hexs(32), "-", hexs(8), "-", hexs(8)[::-1])),
    ("mailchimp-key", join("mailchimp ", hexs(32), "-us21")),
    ("brevo-key", join("xkeysib-", hexs(64), "-", body(16))),
    ("resend-key", join("re_", body(8), "_", body(24))),
    ("stripe-key", join("sk", "_test_", body(24))),
    ("stripe-key", join("whsec_", body(32))),
    ("shopify-token", join("shpat_", hexs(32))),
    ("shopify-token", join("shpss_", hexs(32))),
    ("square-token", join("sq0atp-", body(22))),
    ("square-token", join("SQUARE ", "EAAA", body(60))),
    ("paypal-token", join("access_token$production$", lower(16), "$", hexs(32))),
    ("flutterwave-key", join("FLWSECK_TEST-", hexs(32), "-X")),
    ("plaid-token", join("access-sandbox-", uuid())),
    ("shippo-token", join("shippo_live_", hexs(40))),
    ("duffel-token", join("duffel_test_", body(43))),
    ("easypost-token", join("EZAK", body(54))),
    ("groq-key", join("gsk_", body(52))),
    ("openrouter-key", join("sk-or-v1-", hexs(64))),
    ("perplexity-key", join("pplx-", body(48))),
    ("xai-key", join("xai-", body(80))),
    ("replicate-token", join("r8_", body(37))),
    ("langsmith-key", join("lsv2_pt_", hexs(32), "_", hexs(10))),
    ("pinecone-key", join("pcsk_", body(6), "_", body(60))),
    ("databricks-token", join("dapi", hexs(32))),
    ("supabase-key", join("sbp_", hexs(40))),
    ("supabase-key", join("sb_secret_", body(30))),
    ("planetscale-token", join("pscale_tkn_", body(43))),
    ("prefect-token", join("pnu_", body(36))),
    ("notion-token", join("ntn_", "12345678901", body(35))),
    ("notion-token", join("secret_", body(43))),
    ("airtable-token", join("pat", body(14), ".", hexs(64))),
    ("hubspot-token", join("pat-na1-", uuid())),
    ("figma-token", join("figd_", body(40))),
    ("typeform-token", join("tfp_", body(59))),
    ("contentful-token", join("CFPAT-", body(43))),
    ("launchdarkly-key", join("LD ", "sdk-", uuid())),
    ("adobe-secret", join("p8e-", body(32))),
    ("frameio-token", join("fio-u-", body(64))),
    ("tailscale-key", join("tskey-auth-", body(12), "-", body(30))),
    ("adafruit-key", join("aio_", body(28))),
    ("mapbox-token", join("sk.eyJ1Ijoi", body(40), ".", body(22))),
    ("dropbox-token", join("sl.", body(138))),
    ("facebook-token", join("EAAB", body(150))),
    ("twitter-token", join("A" * 22, body(80))),
    (
        "netrc-password",
        join("machine api.github.com\n  login octocat\n  password ", "Zq7-", body(20)),
    ),
    ("netrc-password", join("machine ftp.example.org login anon password ", "Zq7-", body(12))),
    ("pgpass-password", join("~/.pgpass:\ndb.internal:5432:app:app_user:", "S3cr3t-", body(10))),
    ("cli-password", join("mysql -u root -p", "S3cr3tPa55", " -h db")),
    ("cli-password", join("mysqldump -h db -u app -p'", "S3cr3t Pa55", "' shop > dump.sql")),
    ("cli-password", join("curl -u deploy:", "S3cr3tPa55", " https://api.internal/v1")),
    ("cli-password", join("sshpass -p '", "S3cr3tPa55", "' ssh deploy@host")),
    ("cli-password", join("redis-cli -h cache -a ", "S3cr3tPa55", " ping")),
    ("cli-password", join("tool login --password ", "S3cr3tPa55")),
    ("password-assignment", join("PGPASSWORD=", "S3cr3tPa55", " psql -h db app")),
    ("password-assignment", join("SMTP_PASS=", "S3cr3tPa55")),
    ("password-assignment", join("MYSQL_PWD=", "S3cr3tPa55")),
    ("password-assignment", join('$password = "', "S3cr3tPa55", '";')),
    ("password-assignment", join("define('DB_PASSWORD', '", "S3cr3tPa55", "');")),
    ("password-assignment", join("<server><password>", "S3cr3tPa55", "</password></server>")),
    ("password-assignment", join("env:\n  - name: DB_PASSWORD\n    value: ", "S3cr3tPa55")),
    ("password-assignment", join('<add key="ClearTextPassword" value="', "S3cr3tPa55", '" />')),
    ("password-assignment", join("CREATE USER app IDENTIFIED BY '", "S3cr3tPa55", "';")),
    ("password-assignment", join("ALTER ROLE app WITH LOGIN PASSWORD '", "S3cr3tPa55", "';")),
    ("secret-assignment", join('os.environ["API_KEY"] = "', body(24), '"')),
    ("secret-assignment", join('var telegramToken string = "', body(30), '"')),
    ("secret-assignment", join('val discordToken: String = "', body(30), '"')),
    ("secret-assignment", join('$linearToken .= "', body(30), '"')),
    ("secret-assignment", join('SENTRY_TOKEN ::= "', body(30), '"')),
    ("secret-assignment", join("<grafanaToken>\n    ", body(30), "\n</grafanaToken>")),
    ("secret-assignment", join('System.setProperty("DOPPLER_TOKEN", "', body(30), '")')),
    ("secret-assignment", join('{"username": "ada", "key": "', hexs(32), '"}')),  # kaggle.json
    ("secret-assignment", join("AZURE_DEVOPS_PAT=", lower(52))),
    ("secret-assignment", join("authtoken: ", body(27), "_", body(20))),  # ngrok.yml
    ("authorization-header", join("Authorization: Splunk ", uuid())),
    ("authorization-header", join("authorization: ", body(40))),
    ("secret-assignment", join("DD_APP_KEY=", hexs(40))),
    ("secret-assignment", join("datadog application_key: ", hexs(40))),
    ("secret-assignment", join("signingKey = '", body(32), "'")),
    ("secret-assignment", join("secret_key_base: ", hexs(128))),
    ("authorization-header", join("Authorization: SSWS 00", body(40))),
]

# Ordinary technical text, none of it a credential: every rule must pass it.
ORDINARY: list[str] = [
    "fixed in commit 3f9a0c1b2d4e5f60718293a4b5c6d7e8f9012345 on main",
    "request id 123e4567-e89b-12d3-a456-426614174000 timed out",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "image digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "md5 d41d8cd98f00b204e9800998ecf8427e and sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@laptop",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7" + "vbqajDhA" * 8 + " ops@ci",
    "-----BEGIN CERTIFICATE-----\n"
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
    "-----END CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEa1b2c3d4e5f6a7b8c9d0e1f2a3b4\n"
    "-----END PUBLIC KEY-----",
    "client-certificate-data: " + b64(pem("CERTIFICATE").replace("PRIVATE ", "")),
    "the PuTTY-User-Key-File-3 header names the key type; Private-Lines: counts lines",
    "primary_key = 'user_id_1234567890abcdef1234'",
    "cache_key = 'v1:user:12345:profile:abcdef0123'",
    "public_key: MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + body(40),
    "sort_key = created_at#2024-01-01T00:00:00Z",
    "<li key={item.id}>{item.name}</li> and key: 'row-1234567890abcdef'",
    "monkey = banana1234567890abcdef",
    "The key-value store keeps key-3f9a0c1b2d4e5f60718293a4b5c6d7e8 as a cache entry",
    "mysql -u root -p shop < dump.sql   # prompts for the password",
    "mysql --port 3306 -h db -P3306",
    "curl -u $USER:$API_TOKEN https://api.internal/v1",
    "curl -u admin https://localhost:8080/admin",
    "curl -u admin:admin http://localhost:8080",
    "machine learning models need a login page and password reset flow",
    "Tests pass: 42/42; lint pass: clean",
    "we pass: the tokens through the API gateway",
    "set PGPASSWORD in the environment, never in the script",
    "see https://example.com/search?q=test&sig=abcdef1234567890abcdef for the signed URL docs",
    "Twilio account AC" + hexs(32) + " sends the alerts",
    "AZURE_TENANT_ID=" + uuid(),
    "client.run(TOKEN) reads the Discord token from the environment",
    "ratio 16:9, time 12:30:45, build 2024.01.15:1",
    "version v1.0-rc1 and v1.0-beta.2",
    "os.Environ and this.SomethingLongEnoughHere1 in code",
    "vault kv get secret/db; the AppRole login returns s.tokens via the API",
    "the session id is s.AbCdEfGhIjKlMnOpQrStUvWx in the docs",
    "EAAB is the prefix of Facebook tokens",
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
    "pub_key = 'RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3'",
    "re_compile_pattern_cache_v2 and re_search_index",
    "docker login -u ci --password-stdin < token.txt",
    '{"auth": "bearer", "auths": {}}',
    '{"auth": "' + b64("just-a-user") + '"}',
    "lore export -o /dev/stdout | jq .",
    "the password 'field' is required; password > 8 characters; <password> tags",
    "env:\n  - name: DB_PASSWORD\n    value: ${{ secrets.DB_PASSWORD }}",
    "$pwd = Get-Location; cd $PWD",
    "define('DB_PASSWORD', getenv('DB_PASSWORD'));",
    '["password", "token", "api_key"] are the fields we mask',
    '<li key="user-1234"> and key: row_1234567890_abcdef and {key: item.id}',
    "Authorization: required for every call; the pattern matters",
    "bypass=1234567890abc and mypassword is a word; compassion: 12345678abc",
    # shapes from real code that once read as credentials
    'if token.value == "filter": return self.parse_filter_block()',
    "__all__ = ('Context', 'ContextVar', 'Token', 'copy_context')",
    'NOPASSWORD = "no-password-required"',
    "class StateType(Enum):\n    Pass = ASLLexer.PASS",
    "command_table['generate-db-auth-token'] = command",
    "topics = {'pass': 'The \"pass\" statement\\n'}",
    'proxy_url="socks5h://<username>:<password>@proxy-host"',
    'Token("gitlab-token", "GR1348941", "[A-Za-z0-9_-]{20,64}")',
    '"S3objectKey": "ami-1234567890abcdef0.bin"',
    '"AWS::Config::AggregationAuthorization": "af318b77aaceeeaa"',
    '_REDIRECT = frozenset(["Cookie", "Authorization", "Proxy-Authorization"])',
    "for tok in _itertools.chain([token], iterable):",
    'def __init__(self, stmt="pass", setup="pass", timer=default_timer):',
    "(the default of None has the same effect), or pass 'ignore' to ignore errors",
    "self.id_tokens[id_token] = (client_id, username, expires_in)",
    "Price: $1,299.00 | SKU: ABC-12345-XYZ | Qty: 3",
    "https://github.com/org/repo/pull/1234#discussion_r1234567890",
    "base64 of the fixture: " + b64("hello world, this is only a test fixture " * 3),
]
