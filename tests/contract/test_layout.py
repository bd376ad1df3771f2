"""The package map (issue: one home per capability): only the faces' entry points and the
ground sit at the top of ``lore/``, and every package says what it owns in its docstring."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "lore"
TOP_LEVEL = {
    "__init__.py",
    "__main__.py",
    "api.py",
    "clock.py",
    "errors.py",
    "launch.py",
    "model.py",
    "paths.py",
    "process.py",
    "timeexpr.py",
}


def test_only_the_faces_entry_points_and_the_ground_sit_at_the_top() -> None:
    assert {p.name for p in PACKAGE.glob("*.py")} == TOP_LEVEL


def test_every_package_and_module_has_a_docstring() -> None:
    missing = [
        str(path.relative_to(PACKAGE.parent))
        for path in sorted(PACKAGE.rglob("*.py"))
        if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert missing == []


def test_every_directory_of_code_is_a_package() -> None:
    dirs = {p.parent for p in PACKAGE.rglob("*.py")}
    assert [str(d) for d in sorted(dirs) if not (d / "__init__.py").is_file()] == []


def _top_level_names() -> set[str]:
    names = {f"lore.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem not in ("__init__",)}
    names |= {f"lore.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    return names - {"lore.__main__"}


def test_every_package_is_placed_in_the_layers_and_the_forbidden_contracts() -> None:
    """A new package is checked from day one: it must sit in a layer, and every forbidden
    contract must list it among its sources unless it is the one package allowed."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    names = _top_level_names()
    [layers] = [c for c in contracts if c["type"] == "layers"]
    placed = {m.strip() for row in layers["layers"] for m in row.replace("|", ":").split(":")}
    assert names - placed == set()
    allowed = {"networkx": "lore.graph", "mcp": "lore.mcp", "click": "lore.cli"}
    for contract in (c for c in contracts if c["type"] == "forbidden"):
        owner = allowed[contract["forbidden_modules"][0]]
        assert names - {owner} - set(contract["source_modules"]) == set(), contract["name"]
