"""One table of realistic credentials (each refused) and of ordinary technical text (each
accepted), run through `lore observe` as a user would.

Every fake credential is assembled at runtime, so this file holds no literal token for
a secret scanner to flag.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

Run = Callable[..., Result]

CHARS = "R8mN2kQ7vX4pL9sT3wY6bC1dF5gH0jK8mN2qZ7xVa3Ee9Uu4Oo1Ii6Bb5Cc7Dd2"


def body(n: int) -> str:
    return (CHARS * (n // len(CHARS) + 1))[:n]


def letters(n: int) -> str:
    return "".join(c for c in CHARS * 4 if c.isalpha())[:n]


def b64url(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def pem(label: str) -> str:
    begin, end = "-----BEGIN ", "-----END "
    return "\n".join(
        [
            begin + label + "-----",
            "MIIE" + body(60),
            body(64),
            body(20) + "==",
            end + label + "-----",
        ]
    )


GCP_SERVICE_ACCOUNT = json.dumps(
    {
        "type": "service_account",
        "project_id": "shop-prod",
        "private_key_id": "0123456789abcdef0123456789abcdef01234567",
        "private_key": pem("PRIVATE KEY") + "\n",
        "client_email": "deploy@shop-prod.iam.gserviceaccount.com",
    }
)

# (credential kind, text holding it, the rule that refuses it)
REFUSED: list[tuple[str, str, str]] = [
    ("AWS access key", "export AWS_ACCESS_KEY_ID=" + "AKIA" + "Z7Q4M2XKP9LW3RTB", "aws-access-key"),
    ("AWS secret key", "aws_secret_access_key = " + "Zx9Kq2/Lm7+Rt4Vb8Np3" * 2, "aws-secret-key"),
    ("GCP service-account key", GCP_SERVICE_ACCOUNT, "private-key"),
    ("GCP API key", "maps key " + "AIza" + "Sy" + body(33), "google-api-key"),
    ("Azure storage key", "AZURE_STORAGE_ACCOUNT_KEY=" + body(86) + "==", "secret-assignment"),
    (
        "Azure connection string",
        "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey="
        + body(86)
        + "==;EndpointSuffix=core.windows.net",
        "azure-key",
    ),
    ("GitHub classic token", "GITHUB_TOKEN=" + "ghp" + "_" + body(36), "github-token"),
    (
        "GitHub fine-grained token",
        "push with " + "github" + "_pat_11" + body(20) + "_" + body(59),
        "github-token",
    ),
    ("GitLab token", "CI uses " + "glpat" + "-" + body(20), "gitlab-token"),
    ("Slack bot token", "xoxb" + "-2468013579-1357924680-" + body(24), "slack-token"),
    ("Slack user token", "xoxp" + "-1234567890-1234567890-1234567890-" + body(32), "slack-token"),
    (
        "Slack webhook URL",
        "alerts: https://hooks.slack.com/services/" + "T04ABC123/B05DEF456/" + body(24),
        "slack-webhook",
    ),
    ("Stripe key", "STRIPE_KEY=" + "sk" + "_live_" + body(24), "stripe-key"),
    ("OpenAI-style key", "OPENAI_API_KEY=" + "sk" + "-proj-" + body(48), "openai-key"),
    ("Anthropic-style key", "key " + "sk" + "-ant-api03-" + body(80) + "AA", "anthropic-key"),
    ("npm token", "//registry.npmjs.org/:_authToken=" + "npm" + "_" + body(36), "npm-token"),
    ("PyPI token", "TWINE_PASSWORD=" + "pypi" + "-AgEIcHlwaS5vcmc" + body(60), "pypi-token"),
    ("Twilio API key", "twilio " + "SK" + "0123456789abcdef" * 2, "twilio-key"),
    ("SendGrid key", "SENDGRID=" + "SG" + "." + body(22) + "." + body(43), "sendgrid-key"),
    ("RSA private key", pem("RSA PRIVATE KEY"), "private-key"),
    ("EC private key", pem("EC PRIVATE KEY"), "private-key"),
    ("OpenSSH private key", pem("OPENSSH PRIVATE KEY"), "private-key"),
    ("PGP private key", pem("PGP PRIVATE KEY BLOCK"), "private-key"),
    (
        "JWT",
        "cookie "
        + ".".join([b64url({"alg": "HS256"}), b64url({"sub": "42", "name": "Ada"}), body(43)]),
        "jwt",
    ),
    (
        "database URL with a password",
        "DATABASE_URL=postgres://app:" + "S3cr3t-Pa55" + "@db.internal:5432/app",
        "url-credentials",
    ),
    ("password assignment", "password=" + "hunter" + "2x!", "password-assignment"),
    ("Hugging Face token", "HF_TOKEN " + "hf" + "_" + letters(34), "huggingface-token"),
    ("bearer token", "Authorization: Bearer " + body(32), "authorization-header"),
]

# Ordinary technical text that must never be refused.
ACCEPTED: list[str] = [
    "fixed in commit 3f9a0c1b2d4e5f60718293a4b5c6d7e8f9012345",
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "image digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "fixture: " + base64.b64encode(b"hello world " * 8).decode(),
    "empty fixture AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
    "set password_min_length = 12 and password_max_age_days: 90",
    "the token bucket refills 10 tokens per second",
    "store the API key in Vault, never in the repo",
    "export GITHUB_TOKEN=$GITHUB_TOKEN before the release job",
    "AccountKey=<your-storage-key> goes in the connection string",
    "ghp_ is the prefix of classic GitHub tokens",
    "npm_config_cache=/tmp/npm is set in CI",
    "SKU-1234 ships next week; TASK0123456789abcdef0123456789abcdef is a ticket",
    "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYX"
    "ysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    "postgres://postgres:postgres@localhost:5432/test",
    "hash = hashlib.sha1(b'x').hexdigest()  # da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "-----BEGIN PRIVATE KEY----- headers are parsed by load_pem()",
]


@pytest.mark.parametrize(("kind", "text", "rule"), REFUSED, ids=[k for k, _, _ in REFUSED])
def test_credential_is_refused(run: Run, data_dir: Path, kind: str, text: str, rule: str) -> None:
    result = run("observe", "--json", "-", input=text)
    assert result.exit_code == 7, (kind, result.output)
    reply = json.loads(result.stdout)
    assert reply["code"] == "secret"
    assert reply["secret"] == rule
    assert not (data_dir / "inbox" / "data" / "observations.jsonl").exists()


@pytest.mark.parametrize("text", ACCEPTED)
def test_ordinary_text_is_accepted(run: Run, data_dir: Path, text: str) -> None:
    result = run("observe", "--json", "-", input=text)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["record"]["content"] == text


def test_retract_reason_and_review_lesson_pass_the_gate_too(run: Run, data_dir: Path) -> None:
    secret = "password=" + "hunter" + "2x!"
    made = json.loads(run("remember", "Use uv for installs", "--json").stdout)["id"]
    log = data_dir / "journal" / "data" / "decisions.jsonl"
    before = log.read_bytes()
    result = run("review", "--resolve", made, "--outcome", "successful", "--lesson", secret)
    assert result.exit_code == 7
    result = run("retract", made, "--reason", secret, "--json")
    assert result.exit_code == 7
    assert json.loads(result.stdout)["secret"] == "password-assignment"
    assert log.read_bytes() == before
    assert run("retract", made, "--reason", secret, "--allow-secret").exit_code == 0


def test_the_table_covers_at_least_25_kinds() -> None:
    assert len({kind for kind, _, _ in REFUSED}) >= 25
    assert len(ACCEPTED) >= 15
