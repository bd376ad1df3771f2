"""The docs cover the code: every command, kind, field, exit code and LORE_* variable.

Also checks docs/reference/cli.md is what scripts/gen_cli_docs.py renders now, so the
CLI reference never drifts from the real ``--help``.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from lore import errors
from lore.cli import LAZY_COMMANDS
from lore.model import Record, kinds

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "LORE_CONTRACT.md"
DOCS = ROOT / "docs"
CLI_MD = DOCS / "reference" / "cli.md"
RECORDS_MD = DOCS / "reference" / "records.md"
EXIT_CODES_MD = DOCS / "reference" / "exit-codes.md"
ENVIRONMENT_MD = DOCS / "reference" / "environment.md"

COMMON_FIELDS = tuple(n for n in Record.field_names())
EXIT_CODES = {
    name: value
    for name, value in vars(errors).items()
    if name.startswith("EXIT_") and isinstance(value, int)
}


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _generator() -> ModuleType:
    path = ROOT / "scripts" / "gen_cli_docs.py"
    spec = importlib.util.spec_from_file_location("gen_cli_docs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _section(text: str, heading: str) -> str:
    """The body under the markdown heading whose text is exactly ``heading``."""
    match = re.search(rf"^(#+) {re.escape(heading)}\s*$", text, re.MULTILINE)
    assert match, f"no heading {heading!r}"
    level = len(match.group(1))
    rest = text[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.MULTILINE)
    return rest[: end.start()] if end else rest


def test_cli_reference_is_fresh() -> None:
    generator = _generator()
    assert generator.check(CLI_MD), "docs/reference/cli.md is stale: run scripts/gen_cli_docs.py"


def test_cli_reference_has_no_placeholders() -> None:
    # The generator writes a TODO line for a command whose module cannot be imported.
    assert "TODO" not in _read(CLI_MD)


@pytest.mark.parametrize("name", list(LAZY_COMMANDS))
def test_every_command_is_documented(name: str) -> None:
    assert re.search(rf"^## lore {re.escape(name)}$", _read(CLI_MD), re.MULTILINE)
    assert re.search(rf"^#+ `?lore {re.escape(name)}\b", _read(CONTRACT), re.MULTILINE), (
        f"LORE_CONTRACT.md has no heading for `lore {name}`"
    )


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_every_kind_and_field_is_documented(kind: str) -> None:
    heading = rf"^#+ (?:[\d.]+ )?`{re.escape(kind)}`$"
    assert re.search(heading, _read(CONTRACT), re.MULTILINE), (
        f"LORE_CONTRACT.md has no heading for the {kind} kind"
    )
    section = _section(_read(RECORDS_MD), f"`{kind}`")
    for name in kinds()[kind].field_names():
        if name in COMMON_FIELDS:
            continue
        assert f"`{name}`" in section, f"records.md does not describe {kind}.{name}"


def test_common_fields_are_documented() -> None:
    section = _section(_read(RECORDS_MD), "Common fields")
    for name in (*COMMON_FIELDS, "extra"):
        assert f"`{name}`" in section, f"records.md does not describe the common field {name}"


@pytest.mark.parametrize("path", [CONTRACT, EXIT_CODES_MD], ids=lambda p: p.name)
def test_every_exit_code_is_documented(path: Path) -> None:
    text = _read(path)
    for name, value in EXIT_CODES.items():
        row = re.search(rf"^\|\s*`?{value}`?\s*\|.*`{name}`", text, re.MULTILINE)
        assert row, f"{path.name} has no table row for exit code {value} ({name})"


def test_every_lore_variable_is_documented() -> None:
    used: set[str] = set()
    for source in (ROOT / "lore").rglob("*.py"):
        # LORE_CONTRACT.md is a file name, not a variable.
        used.update(re.findall(r"\bLORE_[A-Z_]+\b(?!\.md)", _read(source)))
    assert used, "found no LORE_* variable in lore/: the pattern is wrong"
    documented = _read(ENVIRONMENT_MD)
    missing = sorted(name for name in used if f"`{name}`" not in documented)
    assert not missing, f"docs/reference/environment.md does not describe {missing}"
