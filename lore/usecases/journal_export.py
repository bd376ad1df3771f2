"""``lore journal export``: every decision as JSON, one Markdown document, or one
architecture decision record (ADR) per decision, numbered and named as adr-tools and
log4brains lay them out (``0001-use-redis-for-caching.md``).

An ADR file carries its decision's id in a comment (``<!-- lore-id: dec-... -->``), so
a re-run finds the file it wrote before and rewrites it in place: numbers never move
and no copy is ever added.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lore.components.journal import Decision
from lore.errors import UsageError
from lore.store.core import Store

FORMATS = ("json", "markdown", "adr")
# An active decision's ADR status comes from its outcome (adr-tools and MADR words); a
# superseded one is "Superseded by <link>" as adr-tools writes it, a retracted one "Retracted".
ADR_STATUS = {
    "pending": "Proposed",
    "successful": "Accepted",
    "revised": "Amended",
    "abandoned": "Rejected",
}
# The mark lore writes on a line of its own under the heading: a title or a text that
# holds such a comment elsewhere on a line never names the file's decision.
_ID_MARK = re.compile(r"^<!-- lore-id: (\S+) -->$", re.MULTILINE)
_NUMBERED = re.compile(r"^(\d+)-.*\.md$")
SLUG_MAX = 60


def export(store: Store, fmt: str, output: str | Path | None = None) -> dict[str, Any]:
    """Export every decision (hidden ones too), oldest first.

    Without ``output`` (json, markdown) the reply's ``content`` is the text to print;
    with it the file is written and the reply says where. ``adr`` needs ``output``, a
    directory, and reports the ADR files ``created``, ``updated`` and ``unchanged``.
    """
    fmt = fmt.strip().lower()
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    decisions = store.of(Decision, hidden=True)
    decisions.sort(key=lambda d: (str(d.timestamp), d.id))
    if fmt == "adr":
        if output is None:
            raise UsageError("--format adr writes one file per decision: give --output DIR")
        return _write_adrs(decisions, Path(output))
    if fmt == "json":
        import orjson

        data = orjson.dumps([d.to_dict() for d in decisions], option=orjson.OPT_INDENT_2)
        text = data.decode("utf-8") + "\n"
    else:
        text = _markdown(decisions)
    out: dict[str, Any] = {"ok": True, "format": fmt, "exported": len(decisions)}
    if output is None:
        out["content"] = text
        return out
    from lore.storage.atomic import write_output

    path = Path(output)
    if path.is_dir():
        raise UsageError(f"--output {path} is a directory; give a file for --format {fmt}")
    write_output(path, text.encode("utf-8"))
    out["file"] = str(path)
    return out


# --- ADR files ----------------------------------------------------------------------------


def slug(title: str) -> str:
    """The file-name part of a title: lower-case words joined by ``-`` (at most SLUG_MAX);
    accented letters lose their accents ("Über" -> "uber") instead of splitting words."""
    import unicodedata

    folded = unicodedata.normalize("NFKD", title.casefold())
    words = re.findall(r"[a-z0-9]+", "".join(c for c in folded if not unicodedata.combining(c)))
    out = ""
    for word in words:
        if out and len(out) + 1 + len(word) > SLUG_MAX:
            break
        out = f"{out}-{word}" if out else word[:SLUG_MAX]
    return out or "decision"


def existing_adrs(folder: Path) -> tuple[dict[str, str], int]:
    """``{decision id: file name}`` of the ADRs lore wrote into ``folder`` before, and
    the highest number any numbered Markdown file there uses (0 when none)."""
    ids: dict[str, str] = {}
    highest = 0
    if not folder.is_dir():
        return ids, highest
    for file in sorted(folder.iterdir()):
        match = _NUMBERED.match(file.name)
        if not match or not file.is_file():
            continue
        highest = max(highest, int(match.group(1)))
        try:
            head = file.read_text(encoding="utf-8")[:2000]
        except (OSError, UnicodeDecodeError):
            continue
        found = _ID_MARK.search(head)
        if found:
            ids.setdefault(found.group(1), file.name)
    return ids, highest


def _write_adrs(decisions: list[Decision], folder: Path) -> dict[str, Any]:
    from lore.storage.atomic import atomic_write

    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--output {folder} is a file; --format adr needs a directory")
    names, highest = existing_adrs(folder)
    for d in decisions:  # numbered in the order they were decided
        if d.id not in names:
            highest += 1
            names[d.id] = f"{highest:04d}-{slug(_heading(d))}.md"
    folder.mkdir(parents=True, exist_ok=True)
    titles = {d.id: _heading(d) for d in decisions}
    created: list[str] = []
    updated: list[str] = []
    unchanged: list[str] = []
    for d in decisions:
        name = names[d.id]
        text = adr(d, names, titles)
        path = folder / name
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == text:
            unchanged.append(name)
            continue
        atomic_write(path, text.encode("utf-8"))
        (created if old is None else updated).append(name)
    return {
        "ok": True,
        "format": "adr",
        "directory": str(folder),
        "exported": len(decisions),
        "created": created,
        "updated": updated,
        "unchanged": unchanged,
    }


def _number(name: str) -> int:
    return int(name.split("-", 1)[0])


def _heading(d: Decision) -> str:
    first = d.decision.strip().splitlines()[0] if d.decision.strip() else d.id
    return first if len(first) <= 100 else first[:99].rstrip() + "…"


def adr_status(d: Decision, ref: Any) -> str:
    """The ADR status of ``d`` (``ref`` renders a link to another decision): see ADR_STATUS."""
    if d.status == "superseded":
        return f"Superseded by {ref(d.superseded_by)}" if d.superseded_by else "Superseded"
    if d.status == "retracted":
        return "Retracted"
    if d.status != "active":  # a hand-edited status lore does not know: shown as written
        return str(d.status).capitalize()
    return ADR_STATUS.get(str(d.outcome), str(d.outcome).capitalize())


def _ref(target: str, names: dict[str, str], titles: dict[str, str]) -> str:
    name = names.get(target)
    if name is None:
        return f"`{target}`"
    return f"[{_number(name)}. {titles.get(target, target)}]({name})"


def adr(d: Decision, names: dict[str, str], titles: dict[str, str]) -> str:
    """One decision as an adr-tools style record; ``names`` maps ids to ADR file names,
    ``titles`` ids to the headings links show."""
    number = _number(names[d.id])
    lines = [f"# {number}. {_heading(d)}", "", f"<!-- lore-id: {d.id} -->", ""]
    lines += [f"Date: {str(d.timestamp)[:10]}", ""]
    lines += ["## Status", "", adr_status(d, lambda target: _ref(target, names, titles)), ""]
    for old in d.supersedes:
        lines += [f"Supersedes {_ref(old, names, titles)}", ""]
    lines += _body(d, lambda target: _ref(target, names, titles))
    return "\n".join(lines).rstrip() + "\n"


def _body(d: Decision, ref: Any) -> list[str]:
    """The sections every rendering shares: context, decision, alternatives, consequences,
    lesson and links."""
    lines = ["## Context", "", d.rationale.strip() or "(no rationale recorded)", ""]
    facts = [f"Type: {d.type}"]
    if d.files:
        facts.append("Files: " + ", ".join(f"`{f}`" for f in d.files))
    if d.tags:
        facts.append("Tags: " + ", ".join(d.tags))
    lines += [" · ".join(facts), ""]
    lines += ["## Decision", "", d.decision.strip(), ""]
    if d.alternatives:
        lines += ["## Alternatives considered", ""]
        lines += [f"- {a}" for a in d.alternatives] + [""]
    lines += ["## Consequences", "", f"Outcome: {d.outcome}", ""]
    if d.lesson_learned.strip():
        lines += ["## Lesson learned", "", d.lesson_learned.strip(), ""]
    links = [f"- Related: {ref(r)}" for r in d.related_decisions]
    links += [f"- Contradicts: {ref(r)}" for r in d.contradicts]
    if links:
        lines += ["## Links", "", *links, ""]
    return lines


def _markdown(decisions: list[Decision]) -> str:
    """Every decision in one Markdown document, oldest first."""
    anchors = {d.id: d.id for d in decisions}

    def ref(target: str) -> str:
        return f"[{target}](#{target})" if target in anchors else f"`{target}`"

    lines = ["# Decisions", "", f"{len(decisions)} decisions, oldest first.", ""]
    for d in decisions:
        lines += [f"## {d.id}", "", f"**{_heading(d)}**", ""]
        lines += [f"Date: {str(d.timestamp)[:10]} · Status: {adr_status(d, ref)}", ""]
        for old in d.supersedes:
            lines += [f"Supersedes {ref(old)}", ""]
        lines += [("#" + line) if line.startswith("## ") else line for line in _body(d, ref)]
    return "\n".join(lines).rstrip() + "\n"
