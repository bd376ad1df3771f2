"""``lore recall --routed``: rendering what ``lore.bridges.routed`` found in lore and Engram."""

from __future__ import annotations

from typing import Any

from lore.cli._app import App
from lore.cli._output import echo, emit_json, note
from lore.errors import UsageError


def routed_recall(app: App, text: str, as_json: bool, **options: Any) -> None:
    """``recall --routed``: ``lore.bridges.routed`` asks both stores; this renders."""
    from lore.bridges import engram
    from lore.bridges.routed import routed

    if not text:
        raise UsageError("nothing to recall: give a QUERY")
    doc = routed(app.store, text, **options)
    if doc["engram"]["error"]:
        note(f"Engram not asked: {doc['engram']['error']}")
    elif not doc["engram"]["found"]:
        note(engram.missing_message(engram.path()).replace("nothing to do", "lore only"))
    if as_json:
        emit_json(doc)
        return
    why = f" ({doc['why']!r})" if doc["why"] else ""
    note(f"route: {doc['route']}{why}")
    if not doc["results"]:
        note(f"no matches for {text!r}")
    for item in doc["results"]:
        score = f"{item['score']:.2f}  " if item.get("score") is not None else ""
        what = f"{item['type']} {item['id'].removeprefix('engram:')}"
        echo(f"{score}{item['store']:<6}  {what}  {item['title'][:100]}")
