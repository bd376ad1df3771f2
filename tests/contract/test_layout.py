"""The package map (issue: one home per capability): only the faces' entry points and the
ground sit at the top of ``lore/``, and every package says what it owns in its docstring."""

from __future__ import annotations

import ast
from pathlib import Path

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
