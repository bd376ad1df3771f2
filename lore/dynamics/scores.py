"""The activation model applied to indexed records in bulk (``lore archive --below``,
consolidation), and to a few records at once (prompt injection): the formula is
``lore.dynamics.activation``; the inputs come from the index and the use history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lore import clock
from lore.dynamics import activation as model
from lore.index import weight
from lore.store.core import Store


def of_docs(store: Store, idx: Any, docs: Iterable[int]) -> dict[int, model.Activation]:
    """Each indexed record's activation (``idx``: the search index)."""
    from lore.index.columns import SEARCH_KINDS
    from lore.index.history import usage

    now = clock.now_datetime().timestamp()
    used = usage(store.root)
    failure = SEARCH_KINDS.index("failure")
    out = {}
    for d in docs:
        rid = idx.id_of(d)
        use = used.get(rid)
        own = (
            weight.failure_importance(idx.group_count(idx.grp[d]))
            if idx.kinds[d] == failure
            else idx.imp[d]
        )
        out[d] = model.score(
            SEARCH_KINDS[idx.kinds[d]],
            created=idx.ts[d],
            now=now,
            last_used=use.last if use else 0.0,
            uses=use.total if use else 0,
            cited=idx.cited_count(d),
            importance=own,
            pinned=d in idx.pins,
        )
    return out


def of_records(store: Store, records: Iterable[Any]) -> dict[str, model.Activation]:
    """The activation of each of ``records`` by id (the index is opened and refreshed):
    the call prompt injection makes to rank what it injects by the same model as recall."""
    from lore.index.persist import open_index

    idx = open_index(store)
    wanted = {r.id for r in records}
    docs = idx.find_ids(wanted)
    found = of_docs(store, idx, docs.values())
    return {rid: found[d] for rid, d in docs.items()}
