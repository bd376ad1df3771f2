"""git's merge driver for goal documents (``intent/data/goals/<id>.yaml``): a three-way
merge by field, and of the ``criteria`` list by criterion id, so criteria that two clones
add, meet or drop merge without a conflict. A field (or one criterion) changed two ways,
or a file that does not parse, is left to ``git merge-file``'s conflict markers: never a
silent choice.

``lore sync`` passes it to git (``-c merge.lore-doc.driver=...``) for the files that
``.gitattributes`` marks ``merge=lore-doc``; a plain ``git pull`` falls back to git's own
text merge. Usage (as git runs it): ``python -m lore.git.mergedoc BASE OURS THEIRS
[PATH]``; the result goes to OURS; exit 0 merged, 1 conflict.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

from lore.git.mergefile import driver_config as _config
from lore.git.mergefile import read_three, replace, run, same, text_merge

MODULE = "lore.git.mergedoc"  # as git runs it: python -m MODULE
DRIVER = "lore-doc"
LISTS = ("criteria",)  # lists of ``{"id": ...}`` maps, merged item by item
_GONE = object()  # a field or item one side does not have
_CONFLICT = object()  # changed two ways: a person decides


def driver_config() -> list[str]:
    """The ``git -c`` arguments that define the driver for one git command."""
    return _config(MODULE, DRIVER, "lore: merge a goal by field and criterion")


def merge(base: Path, ours: Path, theirs: Path) -> bool:
    """Merge ``theirs`` into ``ours`` by field (written to ``ours``); False when it cannot.

    The merged data is decided on the plain data of the three versions; the text that
    holds it is git's own text merge when that gives the same data (criteria in any
    order), else the same with both sides of each conflicting hunk kept (two criteria
    added at the end of the list), else ours with theirs' changes applied field by field
    (comments only theirs had may then be lost, never a value).
    """
    from lore.errors import DataError
    from lore.storage import yamlio
    from lore.storage.atomic import atomic_write

    trees = read_three(base, ours, theirs)
    if trees is None:
        return False
    plain = [yamlio.to_plain(t) if t is not None else {} for t in trees]
    expected = three_way(*plain)
    if expected is None or not isinstance(trees[1], dict):
        return False
    for how in ("", "--union"):
        text = text_merge(base, ours, theirs, how)
        if text is None:
            continue
        try:
            if _equivalent(yamlio.to_plain(yamlio.loads(text, str(ours))), expected):
                atomic_write(ours, text.encode("utf-8"))
                return True
        except DataError:
            continue
    # git's merge with each conflicting hunk taken from ours keeps what either side changed
    # elsewhere (a comment theirs added); the merged values then go in field by field.
    tree = trees[1]
    text = text_merge(base, ours, theirs, "--ours")
    if text is not None:
        with contextlib.suppress(DataError):
            merged = yamlio.loads(text, str(ours))
            if isinstance(merged, dict):
                tree = merged
    for key in [k for k in tree if k not in expected]:
        yamlio.delete_key(tree, tree, key)
    for key, value in expected.items():
        if key not in tree or not same(yamlio.to_plain(tree[key]), value):
            replace(tree, key, value)
    atomic_write(ours, yamlio.dumps_checked(tree, str(ours)))
    return True


def _equivalent(found: Any, expected: dict[str, Any]) -> bool:
    """The same data, the criteria compared by id (git's text may order them otherwise)."""
    if not isinstance(found, dict) or list(found) != list(expected):
        return False
    for key, value in expected.items():
        got = found[key]
        if key in LISTS and isinstance(value, list) and isinstance(got, list):
            if len(got) != len(value) or not all(isinstance(i, dict) for i in got):
                return False
            if not same({i.get("id"): i for i in got}, {i["id"]: i for i in value}):
                return False
        elif not same(got, value):
            return False
    return True


def three_way(o: Any, a: Any, b: Any) -> dict[str, Any] | None:
    """The merged plain data of a document, or None when a person must decide: the same
    field (or criterion) changed on both sides in different ways."""
    if not all(isinstance(x, dict) for x in (o, a, b)):
        return None
    merged: dict[str, Any] = {}
    for key in [*a, *(k for k in b if k not in a)]:
        old, mine, theirs = (x.get(key, _GONE) for x in (o, a, b))
        if key in LISTS and all(isinstance(v, list) or v is _GONE for v in (old, mine, theirs)):
            value = _by_id(*(v if isinstance(v, list) else [] for v in (old, mine, theirs)))
        else:
            value = _pick(old, mine, theirs)
        if value is _CONFLICT:
            return None
        if value is not _GONE:
            merged[key] = value
    return merged


def _pick(old: Any, mine: Any, theirs: Any) -> Any:
    """The value the merge keeps (``_GONE``: it drops it; ``_CONFLICT``: a person must
    decide)."""
    if same(theirs, old) or same(mine, theirs):
        return mine
    if same(mine, old):
        return theirs
    return _CONFLICT


def _by_id(old: list[Any], mine: list[Any], theirs: list[Any]) -> Any:
    """Three lists of ``{"id"}`` maps merged item by item, ours first in our order;
    ``_CONFLICT`` when an item is not such a map or one item changed two ways."""
    maps = []
    for items in (old, mine, theirs):
        if not all(isinstance(i, dict) and isinstance(i.get("id"), str) for i in items):
            return _CONFLICT
        ids = [i["id"] for i in items]
        if len(set(ids)) != len(ids):
            return _CONFLICT
        maps.append({i["id"]: i for i in items})
    o, a, b = maps
    out = []
    for key in [*a, *(k for k in b if k not in a)]:
        value = _pick(o.get(key, _GONE), a.get(key, _GONE), b.get(key, _GONE))
        if value is _CONFLICT:
            return _CONFLICT
        if value is not _GONE:
            out.append(value)
    return out


def main(argv: list[str]) -> int:
    return run(argv, MODULE, merge)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
