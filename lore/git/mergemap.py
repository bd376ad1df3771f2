"""git's merge driver for lore's map file (``registry/data/projects.yaml``): a three-way
merge by entry, so projects added, changed or removed on two clones merge without a
conflict unless both changed the same project differently.

``lore sync`` passes it to git (``-c merge.lore-map.driver=...``) for the files that
``.gitattributes`` marks ``merge=lore-map``; a plain ``git pull`` falls back to git's own
text merge. Anything it cannot merge by entry (a file that does not parse, the same
project changed two ways, other top-level keys changed) is left to ``git merge-file``,
which writes the usual conflict markers: never a silent choice.

Usage (as git runs it): ``python -m lore.git.mergemap BASE OURS THEIRS [PATH]``; the
result goes to OURS; exit 0 merged, 1 conflict.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lore.git.mergefile import driver_config as _config
from lore.git.mergefile import read_three, replace, run, same, text_merge

KEY = "projects"
MODULE = "lore.git.mergemap"  # as git runs it: python -m MODULE
DRIVER = "lore-map"


def driver_config() -> list[str]:
    """The ``git -c`` arguments that define the driver for one git command."""
    return _config(MODULE, DRIVER, "lore: merge projects.yaml by entry")


def merge(base: Path, ours: Path, theirs: Path) -> bool:
    """Merge ``theirs`` into ``ours`` by entry (written to ``ours``); False when it cannot.

    The merged data is decided on the plain data of the three versions. The text that
    holds it is, in order of preference: git's own text merge, the same with both
    sides of each conflicting hunk kept (two entries added at the end of the file),
    or ours with theirs' entry changes applied (hand edits of theirs outside the
    entries may then be lost, never an entry).
    """
    from lore.errors import DataError
    from lore.storage import yamlio
    from lore.storage.atomic import atomic_write

    trees = read_three(base, ours, theirs)
    if trees is None:
        return False
    plain = [yamlio.to_plain(t) if t is not None else {} for t in trees]
    expected = three_way(*plain)
    if expected is None:
        return False
    for how in ("", "--union"):
        text = text_merge(base, ours, theirs, how)
        if text is None:
            continue
        try:
            if yamlio.to_plain(yamlio.loads(text, str(ours))) == expected:
                atomic_write(ours, text.encode("utf-8"))
                return True
        except DataError:
            continue
    tree = trees[1] if isinstance(trees[1], dict) else yamlio.loads(f"{KEY}: {{}}\n", str(ours))
    if tree.get(KEY) is None:
        tree[KEY] = yamlio.loads("{}", str(ours))
    mine, wanted = tree[KEY], expected.get(KEY) or {}
    for name in [n for n in mine if n not in wanted]:
        yamlio.delete_key(tree, mine, name)
    for name, value in wanted.items():
        if name not in mine:
            yamlio.append_key(mine, name, value)
        elif not same(yamlio.to_plain(mine[name]), value):
            replace(mine, name, value)
    for key, value in expected.items():
        if key != KEY and not same(yamlio.to_plain(tree.get(key)), value):
            replace(tree, key, value)
    atomic_write(ours, yamlio.dumps_checked(tree, str(ours)))
    return True


def three_way(o: Any, a: Any, b: Any) -> dict[str, Any] | None:
    """The merged plain data of a map file, or None when a person must decide: the same
    entry (or the rest of the file) changed on both sides in different ways."""
    if not all(isinstance(x, dict) for x in (o, a, b)):
        return None
    rest = [{k: v for k, v in x.items() if k != KEY} for x in (o, a, b)]
    if same(rest[2], rest[0]) or same(rest[2], rest[1]):
        merged = dict(rest[1])
    elif same(rest[1], rest[0]):
        merged = dict(rest[2])
    else:
        return None
    eo, ea, eb = (x.get(KEY) or {} for x in (o, a, b))
    if not all(isinstance(e, dict) for e in (eo, ea, eb)):
        return None
    entries: dict[str, Any] = {}
    for name in [*ea, *(n for n in eb if n not in ea)]:
        mine, theirs, old = ea.get(name), eb.get(name), eo.get(name)
        if same(theirs, old) or same(mine, theirs):
            value = mine
        elif same(mine, old):
            value = theirs
        else:
            return None
        if value is not None or (name in ea and name in eb):
            entries[name] = value
    if KEY in a or KEY in b or entries:
        merged[KEY] = entries
    return merged


def main(argv: list[str]) -> int:
    return run(argv, MODULE, merge)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
