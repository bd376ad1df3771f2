"""Tools for memory that tends itself: ``stale``, ``consolidate``, ``archive`` and ``pin``.

Each calls the use case its CLI command calls (``lore stale`` / ``lore review --stale
--reconfirm``, ``lore consolidate [--apply]``, ``lore archive`` / ``lore unarchive``,
``lore pin`` / ``lore unpin``) and returns the same ``--json`` document.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from lore.mcp._tool import Doc, tool
from lore.mcp.state import store


@tool("stale", title="Find stale advice")
def stale(
    reconfirm: Annotated[
        list[str] | None,
        Field(
            description="Ids of stale records whose advice still holds: record their "
            "files' hashes as they are now."
        ),
    ] = None,
    repo: Annotated[
        str | None,
        Field(description="The git repository to check against (default: the server's)."),
    ] = None,
) -> Doc:
    """Before trusting a decision or pattern about some code, check that the files it names
    have not changed since it was recorded. Without `reconfirm`: the records whose files
    changed, moved or vanished, with the commits that did it, as `lore stale --json`:
    {"repo", "head", "anchored", "checked", "skipped", "stale": [{"id", "type", "title",
    "files": [{"path", "state", "moved_to", "commits", "diffstat", ...}]}]}; read-only.
    With `reconfirm`: record that their advice still holds (a revision with the new
    hashes), as `lore review --stale --reconfirm --json`: {"ok", "reconfirmed": [...]}.
    To replace one instead, record the new decision with `supersedes`; to withdraw it,
    use `lore retract`."""
    from lore.usecases import dynamics

    if reconfirm:
        return dynamics.reconfirm(store(), reconfirm, repo=repo)
    return dynamics.stale(store(), repo=repo)


@tool("consolidate", title="Tend the memory")
def consolidate(
    apply: Annotated[
        list[str] | None,
        Field(
            description="Proposal ids to apply; a settlement takes the record id or value "
            "to keep after a colon (ctr-...:dec-..., cfl-...:successful)."
        ),
    ] = None,
    kinds: Annotated[
        list[str] | None,
        Field(
            description="Only proposals of these kinds (duplicate, contradiction, "
            "conflict, archive, review) or about records of these kinds."
        ),
    ] = None,
    since: Annotated[
        str | None, Field(description="Only proposals about records since this time (7d, ...).")
    ] = None,
    dry_run: Annotated[
        bool,
        Field(description="With `apply`: say what each proposal would change, write nothing."),
    ] = False,
) -> Doc:
    """Without `apply`: what would tend the memory, as proposals that change nothing
    (read-only): near-duplicates to merge, contradictory decisions and values two clones
    set differently to settle, old raw observations to archive, patterns and failure
    types to review. Same as `lore consolidate --json`: {"total", "counts", "proposals":
    [{"id", "kind", "action", "summary", "records", "choices", "default", "detail"}]}.
    With `apply`: apply those proposals (appended revisions and new records, never a
    deletion), as `lore consolidate --apply --json`: {"ok", "dry_run", "applied": [{"id", "kind",
    "action", "created", "changes": [{"id", "change"}]}]}; `dry_run` previews that,
    writing nothing. Show the user the proposals before applying them."""
    from lore.usecases import dynamics

    if apply:
        return dynamics.apply_proposals(
            store(), apply, kinds=kinds or (), since=since, dry_run=dry_run
        )
    return dynamics.consolidate(store(), kinds=kinds or (), since=since)


@tool("archive", title="Archive or unarchive records")
def archive(
    ids: Annotated[list[str], Field(description="The records to archive (or unarchive).")],
    unarchive: Annotated[
        bool, Field(description="Bring the records back instead, with the status they had.")
    ] = False,
) -> Doc:
    """Move settled records out of the default views (recall, resume, lists, the inbox):
    an appended revision `status: archived`; they stay in their files, in recall with
    `show_all` and in the graph's history. A pinned record is refused (`invalid`). Same
    as `lore archive ID... --json`: {"ok", "dry_run", "count", "archived": [{"id", "type",
    "title", "timestamp", "status"}]}; with `unarchive`, as `lore unarchive --json`:
    {"ok", "unarchived": [...]}."""
    from lore.usecases import dynamics

    if unarchive:
        return dynamics.unarchive(store(), ids)
    return dynamics.archive(store(), ids)


@tool("pin", title="Pin or unpin records")
def pin(
    ids: Annotated[list[str], Field(description="The records to pin (or unpin).")],
    unpin: Annotated[bool, Field(description="Unpin them instead.")] = False,
) -> Doc:
    """Pin records whose weight must never fade with age (a rule everyone must keep
    following): their activation never decays in recall, resume and prompt injection,
    and archive never selects them. An appended revision `pinned: true` (false to unpin).
    Same as `lore pin --json`: {"ok", "pinned", "records": [{"id", "type", "title",
    "timestamp", "status"}]}."""
    from lore.usecases import dynamics

    return dynamics.pin(store(), ids, pinned=not unpin)
