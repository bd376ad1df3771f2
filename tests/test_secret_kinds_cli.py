"""Every kind of credential the gate knows, refused by `lore observe` as a user would meet
it (exit 7, nothing written); ordinary technical text written. The samples are in
tests/secret_samples.py; tests/test_secrets.py runs the same ones through the library."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from secret_samples import ORDINARY, SAMPLES

Run = Callable[..., Result]

ONE_PER_RULE = list({rule: (rule, text) for rule, text in reversed(SAMPLES)}.values())


@pytest.mark.parametrize(("rule", "text"), ONE_PER_RULE, ids=[r for r, _ in ONE_PER_RULE])
def test_each_kind_is_refused(run: Run, data_dir: Path, rule: str, text: str) -> None:
    result = run("observe", "--json", "-", input=text)
    assert result.exit_code == 7, result.output
    reply = json.loads(result.stdout)
    assert (reply["code"], reply["secret"]) == ("secret", rule)
    assert not (data_dir / "inbox" / "data" / "observations.jsonl").exists()


def test_ordinary_text_is_written(run: Run, data_dir: Path) -> None:
    for text in ORDINARY:
        result = run("observe", "--json", "--force", "-", input=text)
        assert result.exit_code == 0, (text, result.output)
