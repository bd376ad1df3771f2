"""Decision text helpers: inline ``because:``/``vs:`` parsing, entity extraction, spec_quality."""

from __future__ import annotations

import pytest

from lore.components.journal import (
    SPEC_QUALITY_WEIGHTS,
    Decision,
    extract_entities,
    parse_inline,
    spec_quality,
)

# --- parse_inline --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Use X because: why vs: a, b", ("Use X", "why", ["a", "b"])),
        ("Use X vs: a, b because: why", ("Use X", "why", ["a", "b"])),
        ("Use X BECAUSE: why VS: a,, b ,", ("Use X", "why", ["a", "b"])),
        ("Use X because: it is fast", ("Use X", "it is fast", [])),
        ("Use X vs: Y", ("Use X", "", ["Y"])),
        ("Use X", ("Use X", "", [])),
        # "because" without the colon is ordinary prose, not a marker
        ("Use X because it is fast", ("Use X because it is fast", "", [])),
        # a marker glued to a word is not a marker
        ("Use Xvs: y", ("Use Xvs: y", "", [])),
    ],
)
def test_parse_inline(sentence: str, expected: tuple[str, str, list[str]]) -> None:
    assert parse_inline(sentence) == expected


# --- extract_entities ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # trailing punctuation is not part of the path
        ("edit src/a.py, then docs/b.md.", ["src/a.py", "docs/b.md"]),
        ("(lib/x.py) and setup.cfg;", ["lib/x.py", "setup.cfg"]),
        ("see src/a.py: it is old", ["src/a.py"]),
        # relative, home and absolute paths
        ("./x and ../z/w", ["./x", "../z/w"]),
        ("keep it in ~/y", ["~/y"]),
        ("config in ~/.config/lore/x.toml", ["~/.config/lore/x.toml"]),
        ("read /etc/hosts first", ["/etc/hosts"]),
        # bare file names need a known extension
        ("update README.md", ["README.md"]),
        ("Makefile and notes.unknownext", []),
        # URLs and e-mail addresses are not paths
        ("see https://example.com/a/b.py now", []),
        ("http://x.y and ftp://host/dir/file.txt", []),
        ("mail a@b.md or me@host.org/x", []),
        # versions, dates and fractions are not paths
        ("bump to v1.2.3 or 1.2.3", []),
        ("since 2024-01-02 or 2024/01/02 or 3/4", []),
        # backticked terms come first, in order, then paths; duplicates once
        (
            "use `foo bar` and `src/a.py` then src/a.py and lib/b.py",
            ["foo bar", "src/a.py", "lib/b.py"],
        ),
        ("`orjson` `orjson`", ["orjson"]),
        ("nothing here at all", []),
        # markup-like text is not a path; a lone absolute name is too vague to be one
        ("Use [red]X[/red] in a.py", ["a.py"]),
        ("the /health endpoint", []),
    ],
)
def test_extract_entities(sentence: str, expected: list[str]) -> None:
    assert extract_entities(sentence) == expected


# --- spec_quality --------------------------------------------------------------------


def _decision(**fields: object) -> Decision:
    return Decision(id="dec-000000000001", timestamp="2026-01-01T00:00:00.000000Z", **fields)  # type: ignore[arg-type]


def test_spec_quality_weights_sum_to_one() -> None:
    assert SPEC_QUALITY_WEIGHTS == {
        "rationale": 0.30,
        "alternatives": 0.20,
        "entities": 0.15,
        "type": 0.10,
        "tags": 0.10,
        "detail": 0.15,
    }
    assert round(sum(SPEC_QUALITY_WEIGHTS.values()), 9) == 1.0


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"decision": "Use X"}, 0.0),
        ({"decision": "Use X", "rationale": "   "}, 0.0),  # blank rationale counts as none
        ({"decision": "Use X", "rationale": "fast"}, 0.3),
        ({"decision": "Use X", "alternatives": ["Y"]}, 0.2),
        ({"decision": "Use X", "entities": ["x.py"]}, 0.15),
        ({"decision": "Use X", "type": "tooling"}, 0.1),
        ({"decision": "Use X", "type": "other"}, 0.0),
        # the project tag alone does not count
        ({"decision": "Use X", "tags": ["web"], "project": "web"}, 0.0),
        ({"decision": "Use X", "tags": ["web", "db"], "project": "web"}, 0.1),
        ({"decision": "one two three four five"}, 0.0),  # 5 words: not detailed
        ({"decision": "one two three four five six"}, 0.15),
        (
            {
                "decision": "Use ruff for all linting in CI",
                "rationale": "fast",
                "alternatives": ["flake8"],
                "entities": ["ruff"],
                "type": "tooling",
                "tags": ["lint"],
            },
            1.0,
        ),
        (
            {"decision": "Use X", "rationale": "r", "alternatives": ["a"], "type": "naming"},
            0.6,
        ),
    ],
)
def test_spec_quality(fields: dict[str, object], expected: float) -> None:
    assert spec_quality(_decision(**fields)) == expected
