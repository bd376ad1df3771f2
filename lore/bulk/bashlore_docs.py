"""bash-lore's documents and cross-record links as lore import lines: goals, sessions (with
their handoffs), concepts, registry projects, pattern flags, pattern inversions,
supersedes and what each session captured. Pure: no I/O.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from lore.bulk.bashlore_map import LEVELS, SOURCE, Mapper, choice, mapping, strings, text_of, unique
from lore.bulk.bashlore_read import Item

GOAL_STATUSES = {
    "draft": "draft",
    "active": "active",
    "blocked": "blocked",
    "completed": "completed",
    "cancelled": "cancelled",
    "achieved": "completed",
    "paused": "blocked",
    "abandoned": "cancelled",
    "complete": "completed",
    "done": "completed",
}
_MET = frozenset({"completed", "complete", "done", "met", "achieved", "true"})
FLAG_TYPES = ("harmful", "obsolete", "incorrect")


def goal(m: Mapper, item: Item) -> dict[str, Any] | str:
    d = item.data
    title = d.get("name") if isinstance(d.get("name"), str) else d.get("title")
    if not isinstance(title, str) or not title.strip():
        return "a goal without a name"
    legacy: dict[str, Any] = {}
    original: str = d["id"] if isinstance(d.get("id"), str) else PurePosixPath(item.file).stem
    out = m.start("goal", item, original, d.get("created_at") or d.get("timestamp"))
    out["title"] = title
    # spec-kit descriptions end in " \n": the text is what comes before it.
    out["description"] = text_of(d.get("description")).strip()
    status = d.get("status")
    out["status"] = GOAL_STATUSES.get(status, "active") if isinstance(status, str) else "active"
    if status is not None and out["status"] != status:
        legacy["status"] = status
    out["priority"] = choice(d.get("priority"), LEVELS, "medium", "priority", legacy)
    out["criteria"] = criteria(d.get("success_criteria", d.get("criteria")))
    deadline = d.get("deadline")
    out["deadline"] = deadline if isinstance(deadline, str) and _is_date(deadline) else None
    if deadline is not None and out["deadline"] is None:
        legacy["deadline"] = deadline
    out["depends_on"] = m.refs(item, out, legacy, "depends_on", d.get("depends_on"))
    out["projects"] = strings(d.get("projects"))
    out["related"] = m.refs(item, out, legacy, "related", d.get("related"))
    if isinstance(d.get("source"), dict):  # a spec-kit goal's origin; `source` is a string
        out["source"] = SOURCE
        legacy["source"] = d["source"]
    used = {"name", "success_criteria", "created_at"}
    return m.finish("goal", out, d, used, legacy)


def criteria(value: Any) -> list[dict[str, Any]]:
    """Success criteria (strings or spec-kit objects) as lore's ``{"id", "text", "met"}``;
    a spec-kit criterion keeps its priority, status and acceptance beside them."""
    out: list[dict[str, Any]] = []
    for entry in value if isinstance(value, list) else []:
        n = len(out) + 1
        if isinstance(entry, str) and entry.strip():
            out.append({"id": f"sc-{n}", "text": entry, "met": False})
        elif isinstance(entry, dict):
            text = entry.get("description") or entry.get("text") or entry.get("title")
            status = entry.get("status")
            met = entry.get("met") is True or (isinstance(status, str) and status.lower() in _MET)
            rest = {k: v for k, v in entry.items() if k not in ("id", "text", "met", "description")}
            out.append(
                {"id": f"sc-{n}", "text": text if isinstance(text, str) else "", "met": met, **rest}
            )
    return out


def concept(m: Mapper, item: Item) -> dict[str, Any] | str:
    d = item.data
    name = d.get("name")
    if not isinstance(name, str) or not name.strip():
        return "a concept without a name"
    legacy: dict[str, Any] = {}
    out = m.start("concept", item, d.get("id"), d.get("created_at") or d.get("timestamp"))
    out["name"] = name
    out["description"] = text_of(d.get("definition") or d.get("description"))
    out["aliases"] = unique(strings(d.get("aliases")) + strings(d.get("aka")))
    out["related"] = m.refs(item, out, legacy, "related", d.get("related"))
    out["status"] = choice(
        d.get("status") or "active",
        ("active", "retracted", "superseded"),
        "active",
        "status",
        legacy,
    )
    used = {"definition", "aka", "created_at", "grounded_by"}
    return m.finish("concept", out, d, used, legacy)


def session(m: Mapper, item: Item) -> dict[str, Any] | str:
    """A transfer session: its handoff's message and lists become the session's own."""
    d = item.data
    original = d.get("id") or d.get("session_id") or PurePosixPath(item.file).stem
    if not isinstance(original, str):
        return "a session without an id"
    legacy: dict[str, Any] = {}
    handoff = mapping(d.get("handoff"))
    started, ended = _time(d.get("started_at")), _time(d.get("ended_at"))
    out = m.start("session", item, original, started or _time(handoff.get("created_at")))
    status = d.get("status")
    out["status"] = (
        status if status in ("open", "closed", "archived") else ("closed" if ended else "open")
    )
    out["started_at"] = started
    out["ended_at"] = ended
    message = text_of(handoff.get("message"))
    out["message"] = message
    summary = text_of(d.get("summary"))
    if not summary and message:
        from lore.components.transfer import summarize

        summary = summarize(message)
    out["summary"] = summary
    for key in ("next_steps", "blockers", "questions"):
        out[key] = strings(handoff.get(key))
    out["threads"] = strings(d.get("open_threads") or d.get("threads"))
    context = mapping(d.get("context"))
    out["git"] = _git(d.get("git_state"), context)
    # Filled in by link(): the records that name this session, and the lists it kept.
    out["captured"] = {}
    out["parent"] = m.ref(
        item, out, legacy, "parent_session", d.get("parent_session") or d.get("parent")
    )
    project = context.get("project")
    out["project"] = project if isinstance(project, str) and project else None
    related = d.get("related")
    if isinstance(related, dict):  # a snapshot repeats an id once per version line
        out["related"] = {k: unique(v) if isinstance(v, list) else v for k, v in related.items()}
    rest = {
        k: v
        for k, v in handoff.items()
        if k not in ("message", "next_steps", "blockers", "questions")
    }
    if "created_at" in rest and _time(rest["created_at"]) == ended:
        del rest["created_at"]  # the handoff's time is the session's end
    if rest:
        legacy["handoff"] = rest
    used = {"session_id", "handoff", "open_threads", "git_state", "parent_session",
            "decisions_made", "patterns_learned"}  # fmt: skip
    return m.finish("session", out, d, used, legacy)


def _time(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    from lore.clock import normalize_timestamp

    try:
        return normalize_timestamp(value)
    except ValueError:
        return value


def _git(state: Any, context: dict[str, Any]) -> dict[str, Any] | None:
    """bash-lore's ``git_state`` in lore's git shape (``{"repo", "path", "branch", "head",
    "uncommitted", "last_commits"}``); commits are ``"<sha> <subject>"`` lines, newest first."""
    if not isinstance(state, dict):
        return None
    commits = []
    for line in strings(state.get("commits")):
        sha, _, subject = line.partition(" ")
        commits.append({"sha": sha, "date": None, "subject": subject})
    branch = text_of(state.get("branch"))
    uncommitted = strings(state.get("uncommitted"))
    if not (branch or commits or uncommitted):
        return None
    env = mapping(context.get("environment"))
    path = env.get("pwd") if isinstance(env.get("pwd"), str) else None
    out: dict[str, Any] = {
        "repo": PurePosixPath(path).name if path else None,
        "path": path,
        "branch": branch or None,
        "head": commits[0]["sha"] if commits else None,
        "uncommitted": uncommitted,
        "last_commits": commits,
    }
    out.update({k: v for k, v in state.items() if k not in ("branch", "commits", "uncommitted")})
    return out


def projects(registry: dict[str, dict[str, Any]], file: str) -> list[Item]:
    """Projects named by the registry files (``metadata``, ``relationships``' dependencies,
    ``clusters``' components), one entry each with what those files say about it."""
    found: dict[str, dict[str, Any]] = {}

    def entry(name: str) -> dict[str, Any]:
        return found.setdefault(name, {"name": name})

    meta = registry.get("metadata.yaml", {}).get("metadata")
    for name, data in (meta or {}).items() if isinstance(meta, dict) else ():
        fields = data if isinstance(data, dict) else {"metadata": data}
        entry(str(name)).update({k: v for k, v in fields.items() if k != "name"})
    deps = registry.get("relationships.yaml", {}).get("dependencies")
    for name, data in (deps or {}).items() if isinstance(deps, dict) else ():
        listed = data.get("depends_on") if isinstance(data, dict) else None
        details = [d for d in listed or [] if isinstance(d, dict)]
        target = entry(str(name))
        target["depends_on"] = [str(d["project"]) for d in details if d.get("project")]
        if details:
            target["dependencies"] = details
    clusters = registry.get("clusters.yaml", {}).get("clusters")
    for cluster, data in (clusters or {}).items() if isinstance(clusters, dict) else ():
        members = data.get("components") if isinstance(data, dict) else None
        for name, role in (members or {}).items() if isinstance(members, dict) else ():
            target = entry(str(name))
            target.setdefault("tags", []).append(f"cluster:{cluster}")
            if isinstance(role, dict) and "role" in role:
                target.setdefault("role", role["role"])
    return [Item(file, None, data) for data in found.values()]


def project(m: Mapper, item: Item) -> dict[str, Any] | str:
    d = item.data
    name = d["name"]
    legacy: dict[str, Any] = {}
    out: dict[str, Any] = {
        "kind": "project",
        "id": name,
        "name": name,
        "timestamp": None,
        "project": None,
        "session_id": None,
        "tags": strings(d.get("tags")),
        "source": SOURCE,
    }
    for key in ("description", "path", "repo"):
        out[key] = text_of(d.get(key))
    out["status"] = choice(
        d.get("status") or "active", ("active", "paused", "archived"), "active", "status", legacy
    )
    out["depends_on"] = strings(d.get("depends_on"))
    used: set[str] = set()
    return m.finish("project", out, d, used, legacy)


def _is_date(value: str) -> bool:
    from datetime import date

    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


# --- links between records ------------------------------------------------------------


def link(m: Mapper, lines: list[dict[str, Any]], flags: list[Item]) -> list[tuple[Item, str]]:
    """Cross-record fields no single entry holds: flags onto their patterns, an inverted
    pattern and its ``Avoid:`` anti-patterns, ``supersedes`` from ``superseded_by``, and
    each session's ``captured`` ids. Returns the flag lines it could not place."""
    by_id = {line["id"]: line for line in lines}
    skipped: list[tuple[Item, str]] = []
    for item in flags:
        d = item.data
        target = by_id.get(m.resolve(d.get("pattern_id")) or "")
        if target is None or target["kind"] != "pattern":
            skipped.append((item, f"flag for {d.get('pattern_id')!r}, which is not a pattern here"))
            continue
        if d.get("type") not in FLAG_TYPES or not isinstance(d.get("reason"), str):
            skipped.append(
                (item, f"flag type must be one of {', '.join(FLAG_TYPES)} with a reason")
            )
            continue
        flag = {
            "timestamp": _time(d.get("timestamp")) or target["timestamp"],
            "type": d["type"],
            "reason": d["reason"],
        }
        target.setdefault("flags", []).append(flag)
    patterns = {line["name"]: line for line in lines if line["kind"] == "pattern"}
    antis = sorted(
        (x for x in lines if x["kind"] == "anti-pattern"), key=lambda x: x["timestamp"] or ""
    )
    for anti in antis:
        name = anti["name"]
        if not name.startswith("Avoid: "):
            continue
        base = name[len("Avoid: ") :]
        base = base[len("[DEPRECATED] ") :] if base.startswith("[DEPRECATED] ") else base
        pattern = patterns.get(base)
        if pattern is not None:
            anti["inverted_from"] = pattern["id"]
            pattern.setdefault("inverted_to", anti["id"])  # the first inversion is the one
    for line in lines:
        if line["kind"] == "pattern":
            line["flags"] = sorted(line.get("flags", []), key=lambda f: f["timestamp"] or "")
        if line["kind"] == "decision" and line.get("superseded_by") in by_id:
            newer = by_id[line["superseded_by"]]
            if line["id"] not in newer["supersedes"]:
                newer["supersedes"].append(line["id"])
    sessions = {line["id"]: line for line in lines if line["kind"] == "session"}
    for line in lines:
        session_id = line.get("session_id")
        if line["kind"] in ("decision", "pattern", "failure", "observation") and (
            session_id in sessions
        ):
            captured = sessions[session_id]["captured"]
            captured.setdefault(line["kind"], []).append(line["id"])
    return skipped


def capture_lists(
    m: Mapper, item: Item, line: dict[str, Any], titles: dict[tuple[str, str], str]
) -> None:
    """A session's ``decisions_made`` and ``patterns_learned`` (kept as written) added to
    ``captured`` where they name a record: by id, or by its decision text or name."""
    for key, kind in (("decisions_made", "decision"), ("patterns_learned", "pattern")):
        values = item.data.get(key)
        if not strings(values):
            continue
        line[key] = values
        listed = line["captured"].setdefault(kind, [])
        for value in strings(values):
            target = m.resolve(value) or titles.get((kind, value.strip()))
            if target is not None and target not in listed:
                listed.append(target)
        if not listed:
            del line["captured"][kind]


def titles(lines: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """``(kind, title) -> id`` of the decisions and patterns being imported."""
    out: dict[tuple[str, str], str] = {}
    for line in lines:
        field = {"decision": "decision", "pattern": "name"}.get(line["kind"])
        if field and isinstance(line.get(field), str):
            out.setdefault((line["kind"], line[field].strip()), line["id"])
    return out
