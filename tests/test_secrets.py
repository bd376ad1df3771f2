"""The secrets gate: each detector, the placeholder policy, field paths, redaction, scale.

Every fake credential here is assembled at runtime, so this file holds no literal token
for a secret scanner to flag.
"""

from __future__ import annotations

import ast
import base64
import json
import re
from pathlib import Path

import pytest
from secret_samples import ORDINARY, SAMPLES

from lore.secrets import gate
from lore.secrets.gate import RULES, SecretFinding, redact, scan_fields, scan_text

# --- fake credentials -------------------------------------------------------------------

CHARS = "R8mN2kQ7vX4pL9sT3wY6bC1dF5gH0jK8mN2qZ7xVa3Ee9Uu4Oo1Ii6Bb5Cc7Dd2"  # 64, no "_" or "-"


def body(n: int) -> str:
    """``n`` random-looking letters and digits."""
    return (CHARS * (n // len(CHARS) + 1))[:n]


def b64url(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


PW = "hunter" + "2x"
AWS_KEY = "AKIA" + "Z7Q4M2XKP9LW3RTB"
AWS_SECRET_VALUE = "Zx9Kq2/Lm7+Rt4Vb8Np3" * 2  # 40 characters
GITHUB = "ghp" + "_" + body(36)
GITLAB = "glpat" + "-" + body(20)
SLACK = "xoxb" + "-2468013579-1357924680-" + body(24)
WEBHOOK = "https://hooks.slack.com/services/" + "T04ABC123/B05DEF456/" + body(24)
STRIPE = "sk" + "_live_" + body(24)
OPENAI = "sk" + "-" + body(48)
ANTHROPIC = "sk" + "-ant-api03-" + body(80) + "AA"
GOOGLE = "AIza" + "Sy" + body(33)
JWT = ".".join(
    [b64url({"alg": "HS256", "typ": "JWT"}), b64url({"sub": "42", "name": "Ada"}), body(43)]
)
OPAQUE = body(32)  # a bearer token with no recognisable format


def pem(label: str, *, footer: bool = True) -> str:
    begin, end = "-----BEGIN ", "-----END "
    lines = [begin + label + "-----", "MIIE" + body(60), body(64), body(20) + "=="]
    if footer:
        lines.append(end + label + "-----")
    return "\n".join(lines)


# The first rules' ids and kinds, pinned: callers and --json output rely on them.
PINNED = {
    "private-key": "private key block",
    "aws-access-key": "AWS access key ID",
    "aws-secret-key": "AWS secret access key",
    "github-token": "GitHub token",
    "gitlab-token": "GitLab token",
    "slack-token": "Slack token",
    "slack-webhook": "Slack webhook URL",
    "stripe-key": "Stripe secret key",
    "anthropic-key": "Anthropic API key",
    "openai-key": "OpenAI API key",
    "google-api-key": "Google API key",
    "npm-token": "npm access token",
    "pypi-token": "PyPI API token",
    "twilio-key": "Twilio API key",
    "sendgrid-key": "SendGrid API key",
    "azure-key": "Azure storage or service key",
    "huggingface-token": "Hugging Face token",
    "jwt": "JSON Web Token",
    "url-credentials": "password in a URL",
    "authorization-header": "credential in an Authorization header",
    "password-assignment": "hard-coded password",
    "secret-assignment": "hard-coded secret or token",
}
KINDS = RULES

# (rule, text): each text holds exactly one credential, found by that rule.
POSITIVES = [
    ("aws-access-key", f"deploy key {AWS_KEY} for staging"),
    ("aws-access-key", "AKIA" + "Q" * 16),
    ("aws-access-key", "ASIA" + "Z7Q4M2XKP9LW3RTB"),
    ("aws-access-key", f'{{"AccessKeyId": "{AWS_KEY}"}}'),
    ("aws-secret-key", f"aws_secret_access_key = {AWS_SECRET_VALUE}"),
    ("aws-secret-key", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET_VALUE}"),
    ("aws-secret-key", f'"aws_secret_access_key": "{AWS_SECRET_VALUE}"'),
    ("aws-secret-key", f"aws_secret_key: {AWS_SECRET_VALUE}"),
    ("github-token", f"export GITHUB_TOKEN={GITHUB}"),
    ("github-token", "gho" + "_" + body(36)),
    ("github-token", "ghs" + "_" + body(40)),
    ("github-token", "github" + "_pat_" + body(22) + "_" + body(59)),
    ("gitlab-token", f"CI uses {GITLAB} to push"),
    ("slack-token", f"SLACK_BOT={SLACK}"),
    ("slack-token", "xoxp" + "-1234567890-1234567890-1234567890-" + body(32)),
    ("slack-token", "xoxa" + "-2-" + body(40)),
    ("slack-token", "xoxr" + "-1-" + body(40)),
    ("slack-token", "xoxs" + "-1234567890-" + body(40)),
    ("slack-webhook", f"alerts go to {WEBHOOK}"),
    ("slack-webhook", WEBHOOK.removeprefix("https://")),
    ("stripe-key", f"STRIPE_KEY={STRIPE}"),
    ("stripe-key", "rk" + "_live_" + body(30)),
    ("openai-key", f"OPENAI_API_KEY={OPENAI}"),
    ("openai-key", "sk" + "-proj-" + body(30) + "_" + body(20) + "-" + body(60)),
    ("anthropic-key", f"key: {ANTHROPIC}"),
    ("google-api-key", f"maps?key={GOOGLE}&v=3"),
    ("npm-token", "//registry.npmjs.org/:_authToken=" + "npm" + "_" + body(36)),
    ("pypi-token", "TWINE_PASSWORD=" + "pypi" + "-AgEIcHlwaS5vcmc" + body(60)),
    ("twilio-key", "twilio key " + "SK" + "0123456789abcdef" * 2),
    ("sendgrid-key", "SG" + "." + body(22) + "." + body(43)),
    ("azure-key", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + body(86) + "=="),
    ("huggingface-token", "HF: " + "hf" + "_" + "".join(c for c in body(60) if c.isalpha())[:34]),
    ("private-key", pem("RSA PRIVATE KEY")),
    ("private-key", pem("PRIVATE KEY")),
    ("private-key", pem("EC PRIVATE KEY")),
    ("private-key", pem("DSA PRIVATE KEY")),
    ("private-key", pem("OPENSSH PRIVATE KEY")),
    ("private-key", pem("ENCRYPTED PRIVATE KEY")),
    ("private-key", pem("PGP PRIVATE KEY BLOCK")),
    ("private-key", pem("RSA PRIVATE KEY", footer=False)),
    ("private-key", json.dumps({"key": pem("PRIVATE KEY")})),  # one line, "\n" escapes
    ("jwt", f"session cookie {JWT}"),
    ("jwt", f"Authorization: Bearer {JWT}"),
    ("url-credentials", "DATABASE_URL=postgres://app:" + "S3cr3t-Pa55" + "@db.internal:5432/app"),
    ("url-credentials", "redis://:" + PW + "@cache:6379/0"),
    ("url-credentials", "https://deploy:" + PW + "@git.example.org/repo.git"),
    ("authorization-header", f"Authorization: Bearer {OPAQUE}"),
    ("authorization-header", f"curl -H 'Authorization: token {OPAQUE}' https://api"),
    (
        "authorization-header",
        "Authorization: Basic " + base64.b64encode(b"ops:" + b"s3cr3t!x").decode(),
    ),
    ("authorization-header", f'{{"authorization": "Bearer {OPAQUE}"}}'),
    ("password-assignment", f"password={PW}"),
    ("password-assignment", f'{{"password": "{PW}"}}'),
    ("password-assignment", f"passwd: '{PW}'"),
    ("password-assignment", f"pwd={PW}"),
    ("password-assignment", f"PASSWORD = {PW}"),
    ("password-assignment", f"DB_PASSWORD={PW}"),
    ("password-assignment", f"dbPassword = '{PW}'"),
    ("password-assignment", f"mysql --password={PW} -h db"),
    ("password-assignment", f"password: {PW}"),
    ("password-assignment", f"password: `{PW}`"),
    ("password-assignment", f'passphrase := "{PW}"'),
    ("password-assignment", '"password": "Tr0ub4dor &3"'),
    ("password-assignment", f"login(user, password={PW})"),
    ("password-assignment", f'password="{PW}'),  # never closed
    ("secret-assignment", "secret=" + "s3cr3tv4lue"),
    ("secret-assignment", "api_key=" + body(24)),
    ("secret-assignment", "apikey: " + body(24)),
    ("secret-assignment", "x-api-key: " + body(24)),
    ("secret-assignment", "access_token=" + body(24)),
    ("secret-assignment", "auth_token=" + body(24)),
    ("secret-assignment", "client_secret = '" + body(24) + "'"),
    ("secret-assignment", "token=" + body(24)),
    ("secret-assignment", "SECRET_KEY = 'django-insecure-" + body(30) + "'"),
    ("secret-assignment", "clientSecret: '" + body(24) + "'"),
    ("secret-assignment", '"token": "' + body(1500) + '"'),  # longer than a quoted value
    *SAMPLES,
]

# Prose and placeholders: none of these holds a real credential.
NEGATIVES = [
    # prose
    "the password field is validated",
    "rotate the api key monthly",
    "token= is parsed by the lexer",
    "set password via env var",
    "use a JWT for auth",
    "Password: self-service reset by email",
    "Secret: stored in Vault, never in the repo",
    "token: SHA-256 of the session id",
    "passwords: 3 attempts, then lockout",
    "max_tokens=4096",
    "we use sk-learn and risk-based alerts",
    "grep the diff for '-----BEGIN RSA PRIVATE KEY-----' in CI",
    "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    "eyJ is how every JSON object starts in base64",
    "clone git@github.com:org/repo.git or http://localhost:8080/path",
    "https://user@example.org/login",
    '{"token": "The API token used by CI", "password": "Password for the db user"}',
    'password = "correct horse battery staple"',  # mostly words: read as prose
    # empty, short, masked
    'password=""',
    "password=",
    "password: ''",
    "password=abc12",
    "password=********",
    "password=xxxxxxxx",
    "token: XXXX-XXXX-XXXX",
    "password: ••••••••",
    # templates and variables
    "password=<your-password>",
    "password=${DB_PASSWORD}",
    "password: ${DB_PASSWORD:-}",
    "password=$DB_PASSWORD",
    "password=$(cat /run/secrets/db)",
    "password=%(db_password)s",
    'password: "{{ vault_db_password }}"',
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "api_key=%API_KEY%",
    "password: !vault |",
    "password: *default_password",
    "secret=[REDACTED]",
    # placeholder words
    "password=changeme",
    "password=example",
    "password=placeholder",
    "password=your_password",
    "token=yourtoken",
    "api_key=your-api-key-here",
    "password=dummy",
    "secret=redacted",
    "password=None",
    "token: null",
    "password=true",
    "secret=false",
    "password=password",
    "secret=secret",
    "password=example123",
    # code references
    "password = os.environ['DB_PASSWORD']",
    'password = os.environ.get("DB_PASSWORD")',
    "password=getenv('DB_PASSWORD')",
    "token = env.GITHUB_TOKEN",
    "api_key = process.env.API_KEY",
    "secret_key = settings.SECRET_KEY",
    "password = get_secret('db')",
    "token = self.token",
    "password = new_password",
    "token: GITHUB_TOKEN",
    "login(username=name, password=user_input)",
    "password=newPassword",
    'f"OPENAI_API_KEY={api_key}"',
    "print(f'token={token}.')",
    "$PWD:/usr/local/bin",
    "pwd: /home/dev/project",
    "secret: /run/secrets/db_password",
    "token_url: https://auth.internal/oauth/token",
    # URLs with placeholder passwords
    "postgres://user:password@localhost/db",
    "postgres://postgres:postgres@localhost:5432/test",
    "redis://:${REDIS_PASSWORD}@cache:6379",
    "amqp://guest:****@rabbit",
    # documented stand-ins for fixed-format tokens
    "AKIA" + "IOSFODNN7" + "EXAMPLE",
    "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
    "ghp" + "_" + "x" * 36,
    "https://hooks.slack.com/services/" + "T00000000/B00000000/" + "X" * 24,
    "Authorization: Bearer <token>",
    "Authorization: Bearer $TOKEN",
    *ORDINARY,
]


# --- the rule table ---------------------------------------------------------------------


def test_rule_table() -> None:
    assert {rule: RULES[rule] for rule in PINNED} == PINNED


def test_the_contract_lists_every_rule_in_order() -> None:
    """LORE_CONTRACT.md §7.9's table is the documented list of kinds: rule ids and kinds
    exactly as the gate reports them, in the order the detectors run."""
    contract = Path(__file__).parents[1] / "LORE_CONTRACT.md"
    text = contract.read_text(encoding="utf-8")
    section = text[text.index("### 7.9 Secrets gate") : text.index("### 7.10")]
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| ([^|]+?) \| [^|]+ \|$", section, re.MULTILINE)
    assert rows == list(RULES.items())


def test_every_rule_has_a_positive_case() -> None:
    assert {rule for rule, _ in POSITIVES} == set(KINDS)


def test_finding_is_frozen() -> None:
    finding = SecretFinding("rationale", "jwt", "JSON Web Token")
    with pytest.raises(AttributeError):
        finding.rule = "other"  # type: ignore[misc]


# --- detectors --------------------------------------------------------------------------


@pytest.mark.parametrize(("rule", "text"), POSITIVES)
def test_detects(rule: str, text: str) -> None:
    assert scan_text(text) == [SecretFinding("", rule, KINDS[rule])]


@pytest.mark.parametrize(("rule", "text"), POSITIVES)
def test_detects_inside_long_text(rule: str, text: str) -> None:
    """Past the short-text pre-check every detector runs; the results must not change."""
    padding = "Notes on the deploy; the password policy is unchanged. " * 100
    assert len(padding) > 4096
    assert scan_text(padding + text + "\n" + padding) == [SecretFinding("", rule, KINDS[rule])]


@pytest.mark.parametrize(("rule", "text"), POSITIVES)
def test_redacted_text_is_clean(rule: str, text: str) -> None:
    redacted = redact(text)
    assert f"[REDACTED:{rule}]" in redacted
    assert scan_text(redacted) == []


@pytest.mark.parametrize("text", NEGATIVES)
def test_ignores_prose_and_placeholders(text: str) -> None:
    assert scan_text(text) == []
    assert redact(text) == text


@pytest.mark.parametrize("text", ["", " ", "\n\n", "a"])
def test_empty_and_tiny_text(text: str) -> None:
    assert scan_text(text) == []


def test_one_finding_per_rule_in_order_of_appearance() -> None:
    text = f"first {GITHUB}, then password={PW}, {AWS_KEY} and {'AKIA' + 'Q' * 16}"
    assert [f.rule for f in scan_text(text)] == [
        "github-token",
        "password-assignment",
        "aws-access-key",
    ]


def test_specific_rule_wins_over_assignment() -> None:
    assert [f.rule for f in scan_text(f"token={GITHUB}")] == ["github-token"]
    assert [f.rule for f in scan_text(f"api_key: {GOOGLE}")] == ["google-api-key"]
    assert [f.rule for f in scan_text(f"password={JWT}")] == ["jwt"]


def test_token_needs_a_boundary() -> None:
    assert scan_text("X" + AWS_KEY) == []
    assert scan_text(AWS_KEY + "9") == []
    assert scan_text("my" + GITHUB) == []


# --- unicode ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        (f"Ключ доступа: {AWS_KEY} — не публиковать", "aws-access-key"),
        (f"密钥{GITHUB}已轮换", "github-token"),
        (f"🔑 password={PW} 🔒", "password-assignment"),
        (f"Пароль: password: '{PW}'", "password-assignment"),
        (f"İstanbul İzmir password={PW}", "password-assignment"),  # "İ".lower() is 2 chars
        (f"naïve café {JWT} über", "jwt"),
    ],
)
def test_unicode_around_secrets(text: str, rule: str) -> None:
    assert scan_text(text) == [SecretFinding("", rule, KINDS[rule])]


def test_redact_offsets_survive_characters_that_lowercase_longer() -> None:
    text = f"İİİ password={PW} and İ token={OPAQUE}."
    assert redact(text) == (
        "İİİ password=[REDACTED:password-assignment] and İ token=[REDACTED:secret-assignment]."
    )


# --- redact -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no secrets here", "no secrets here"),
        (
            f"deploy with password={PW} today",
            "deploy with password=[REDACTED:password-assignment] today",
        ),
        (f'{{"password": "{PW}"}}', '{"password": "[REDACTED:password-assignment]"}'),
        (
            "postgres://app:" + PW + "@db:5432/app",
            "postgres://app:[REDACTED:url-credentials]@db:5432/app",
        ),
        (
            f"Authorization: Bearer {OPAQUE}",
            "Authorization: Bearer [REDACTED:authorization-header]",
        ),
        (
            f"keys {AWS_KEY} and {GITHUB}.",
            "keys [REDACTED:aws-access-key] and [REDACTED:github-token].",
        ),
        (f"hook: {WEBHOOK}", "hook: [REDACTED:slack-webhook]"),
        (f"stripe {STRIPE}", "stripe [REDACTED:stripe-key]"),
        (
            f"before\n{pem('RSA PRIVATE KEY')}\nafter",
            "before\n[REDACTED:private-key]\nafter",
        ),
        (
            f"aws_secret_access_key={AWS_SECRET_VALUE} # prod",
            "aws_secret_access_key=[REDACTED:aws-secret-key] # prod",
        ),
        (f"(password={PW})", "(password=[REDACTED:password-assignment])"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_redact_replaces_every_occurrence() -> None:
    text = f"{AWS_KEY} {AWS_KEY} password={PW} password={PW}"
    assert redact(text) == (
        "[REDACTED:aws-access-key] [REDACTED:aws-access-key] "
        "password=[REDACTED:password-assignment] password=[REDACTED:password-assignment]"
    )


# --- scan_fields ------------------------------------------------------------------------


def test_scan_fields_reports_paths() -> None:
    fields = {
        "rationale": "We chose SQLite; the password field is validated.",
        "alternatives": ["Postgres", f"flat files with token={OPAQUE}"],
        "tags": ("db", AWS_KEY),
        "extra": {
            "note": {"deep": f"pasted {GITHUB}"},
            "items": [{"name": "ok"}, {"url": "redis://:" + PW + "@cache"}],
            "count": 3,
        },
    }
    assert scan_fields(fields) == [
        SecretFinding("alternatives[1]", "secret-assignment", KINDS["secret-assignment"]),
        SecretFinding("tags[1]", "aws-access-key", KINDS["aws-access-key"]),
        SecretFinding("extra.note.deep", "github-token", KINDS["github-token"]),
        SecretFinding("extra.items[1].url", "url-credentials", KINDS["url-credentials"]),
    ]


def test_scan_fields_several_findings_in_one_field() -> None:
    fields = {"rationale": f"password={PW} and {AWS_KEY}"}
    assert scan_fields(fields) == [
        SecretFinding("rationale", "password-assignment", KINDS["password-assignment"]),
        SecretFinding("rationale", "aws-access-key", KINDS["aws-access-key"]),
    ]


def test_scan_fields_nested_lists() -> None:
    assert scan_fields({"grid": [["a", "b"], ["c", JWT]]}) == [
        SecretFinding("grid[1][1]", "jwt", KINDS["jwt"])
    ]


@pytest.mark.parametrize(
    ("fields", "field", "rule"),
    [
        ({"extra": {"password": PW}}, "extra.password", "password-assignment"),
        ({"db_password": PW}, "db_password", "password-assignment"),
        ({"dbPassword": PW}, "dbPassword", "password-assignment"),
        ({"API_KEY": body(24)}, "API_KEY", "secret-assignment"),
        ({"token": body(24)}, "token", "secret-assignment"),
        ({"aws_secret_access_key": AWS_SECRET_VALUE}, "aws_secret_access_key", "aws-secret-key"),
        ({"Authorization": f"Bearer {OPAQUE}"}, "Authorization", "authorization-header"),
        ({"token": GITHUB}, "token", "github-token"),  # the specific rule, once
    ],
)
def test_scan_fields_credential_named_keys(
    fields: dict[str, object], field: str, rule: str
) -> None:
    assert scan_fields(fields) == [SecretFinding(field, rule, KINDS[rule])]


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"rationale": "the password field is validated", "title": "Validate passwords"},
        {"password": "changeme"},
        {"password": ""},
        {"token": "rotated by the deploy job"},
        {"secret": "${VAULT_SECRET}"},
        {"passwords": PW},  # not a credential name
        {"keyboard": PW},
        {"n": 1, "ratio": 0.5, "ok": True, "none": None, "raw": b"AKIA" + b"Q" * 16},
        {"password": 12345678},
    ],
)
def test_scan_fields_clean(fields: dict[str, object]) -> None:
    assert scan_fields(fields) == []


def test_scan_fields_non_string_keys() -> None:
    assert scan_fields({1: {2: AWS_KEY}}) == [  # type: ignore[dict-item]
        SecretFinding("1.2", "aws-access-key", KINDS["aws-access-key"])
    ]


def test_scan_fields_agrees_with_scan_text_per_field() -> None:
    """The joined fast path must never hide a finding that the field alone has."""
    for rule, text in POSITIVES:
        fields = {"title": "clean", "rationale": text, "tags": ["a", "b"]}
        assert scan_fields(fields) == [SecretFinding("rationale", rule, KINDS[rule])]


# --- scale ------------------------------------------------------------------------------


def test_five_megabytes_with_a_secret_at_the_very_end() -> None:
    paragraph = (
        "We rotate the api key monthly and the password field is validated on save; "
        "token= is parsed by the lexer, secret: kept in Vault. "
        "See https://example.org/docs?page=2&lang=en, x = 1; name: value. "
        "Ünïcödé — 密码 и ключ 🔑: no credentials here. "
        "password=${DB_PASSWORD} api_key: <your-key> eyJ sk-learn AKIA ghp xox\n"
    )
    text = paragraph * (5_000_000 // len(paragraph)) + GITHUB
    assert len(text) > 4_900_000
    assert scan_text(text) == [SecretFinding("", "github-token", KINDS["github-token"])]


PEM_HEADER = "-----BEGIN " + "RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("a" * 200_000, []),
        ("=" * 200_000, []),
        (":" * 200_000, []),
        ("password= " * 50_000, []),
        ('password="' * 50_000, []),
        ("password: '" + "x" * 200_000, []),
        ("://" + "a" * 100_000 + ":" + "b" * 100_000, []),
        ("eyJ" + "a" * 100_000 + ".eyJ" + "b" * 100_000, []),
        ("eyJ" * 100_000, []),
        ("sk-" * 100_000, []),
        ("sk-" + "a" * 100_000, []),
        ("ghp_" * 100_000, []),
        ("AKIA" * 100_000, []),
        ((PEM_HEADER + "\n") * 10_000, []),
        (PEM_HEADER + "-a" * 100_000, []),
        ((PEM_HEADER + "\n" + body(64) + "\n") * 5_000, ["private-key"]),
        # the shapes found by where they stand
        (("AC" + "0123456789abcdef" * 2 + " ") * 5_000, []),
        ("." * 200_000, []),
        ("MTIzNDU2Nzg5MDEyMzQ1Njc4.abcdef." * 6_000, []),
        (":A" * 100_000, []),
        ("123456789:A" * 20_000, []),
        ("x?sv=1&sig=" + "a" * 200_000, []),
        ("machine h login u " * 20_000, []),
        ("mysql " + "-p " * 100_000, []),
        ("curl " + "x" * 200_000, []),
        ("Private-Lines: 1\n" * 20_000, []),
        ("LS0tLS1CRUdJTi" * 20_000, []),
        ('"auth": "' * 30_000, []),
        ("key=" * 50_000, []),
        ("vault " + "s." * 100_000, []),
        ("abc1Q~" * 40_000, []),
        (("a" * 32 + "-us") * 5_000, []),
        ("A" * 200_000, []),
        ("mailgun " + ("a" * 32 + "-") * 6_000, []),
        ("pgpass\n" + "a:1:b:c:\n" * 30_000, []),
    ],
    ids=lambda value: value if isinstance(value, list) else repr(value[:24]),
)
def test_pathological_inputs_stay_linear(text: str, rules: list[str]) -> None:
    """Inputs built to provoke backtracking or rescanning; a regression here is a hang."""
    assert [f.rule for f in scan_text(text)] == rules


# --- module hygiene ---------------------------------------------------------------------


RULE_MODULES = (
    "lore.secrets.rules",
    "lore.secrets.policy",
    "lore.secrets.tokens",
    "lore.secrets.forms",
    "lore.secrets.keys",
)


def test_module_imports_only_the_standard_library() -> None:
    folder = Path(gate.__file__).parent
    imported = set()
    sources = [Path(gate.__file__)] + [folder / f"{m.rsplit('.', 1)[1]}.py" for m in RULE_MODULES]
    for source in sources:
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                imported.add(node.module or "")
    allowed = {"__future__", "re", "binascii", "typing", "collections.abc", "lore.errors"}
    assert imported <= allowed | set(RULE_MODULES)
