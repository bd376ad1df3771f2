"""lore's server entry in coding agents' MCP configuration: Claude Code (``.mcp.json`` or
``~/.claude.json``), Codex CLI (``config.toml``) and Cursor (``mcp.json``). Adds, replaces
or removes only the ``lore`` entry; every other entry, key and (in TOML) comment stays.
Where each agent keeps that file is ``lore.sessions.agents.config_file``. Needs no MCP SDK.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from lore.errors import InvalidInputError
from lore.sessions.agents import NAME


def entry(agent: str, lore_bin: str, data_dir: str | None = None) -> dict[str, Any]:
    """The server entry: the installed lore's absolute path and ``mcp``."""
    args = ["--data-dir", os.path.abspath(data_dir), "mcp"] if data_dir else ["mcp"]
    server: dict[str, Any] = {"command": lore_bin, "args": args}
    if agent == "claude":
        server = {"type": "stdio", **server}
    return server


def snippet(agent: str, server: dict[str, Any]) -> str:
    """What ``--print`` shows: the entry in the file's own format."""
    if agent == "codex":
        return _toml_table(server)
    return json.dumps({"mcpServers": {NAME: server}}, indent=2) + "\n"


def install(agent: str, path: Path, server: dict[str, Any]) -> dict[str, Any]:
    """Add or update lore's entry in ``path``; nothing is written when it is already there."""
    if agent == "codex":
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        new = _toml_set(text, server, path)
        return _finish(path, text, new, changed_key="changed")
    from lore.sessions.hooks import load_settings

    data = load_settings(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise InvalidInputError(f"{path}: 'mcpServers' is not an object", file=str(path))
    current = servers.get(NAME)
    merged = {**current, **server} if isinstance(current, dict) else server
    if merged == current:
        return {"file": str(path), "changed": False, "backup": None}
    servers[NAME] = merged
    return {"file": str(path), "changed": True, "backup": _write_json(path, data)}


def uninstall(agent: str, path: Path) -> dict[str, Any]:
    """Remove lore's entry from ``path`` (whatever lore path it names)."""
    if not path.exists():
        return {"file": str(path), "removed": False, "backup": None}
    if agent == "codex":
        text = path.read_text(encoding="utf-8")
        return _finish(path, text, _toml_remove(text), changed_key="removed")
    from lore.sessions.hooks import load_settings

    data = load_settings(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or NAME not in servers:
        return {"file": str(path), "removed": False, "backup": None}
    del servers[NAME]
    return {"file": str(path), "removed": True, "backup": _write_json(path, data)}


def _write_json(path: Path, data: dict[str, Any]) -> str | None:
    from lore.sessions.hooks import write_settings

    path.parent.mkdir(parents=True, exist_ok=True)
    return write_settings(path, data)


def _finish(path: Path, old: str, new: str, *, changed_key: str) -> dict[str, Any]:
    if new == old:
        return {"file": str(path), changed_key: False, "backup": None}
    _check_toml(path, new)
    backup = None
    if path.exists():
        from lore.storage.atomic import atomic_write

        backup = path.with_name(f"{path.name}.lore-backup")
        atomic_write(backup, old.encode("utf-8"))
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    from lore.storage.atomic import atomic_write

    atomic_write(path.resolve() if path.is_symlink() else path, new.encode("utf-8"))
    return {"file": str(path), changed_key: True, "backup": str(backup) if backup else None}


# --- TOML, edited as text: no TOML writer is a dependency, and comments must survive -----

_HEADER = re.compile(r"^\s*\[\s*(\[)?\s*([^\]]*?)\s*\]")
_OURS = re.compile(r'^mcp_servers\s*\.\s*("lore"|\'lore\'|lore)$')
_OURS_SUB = re.compile(r'^mcp_servers\s*\.\s*("lore"|\'lore\'|lore)\s*\.')


def _toml_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string or array is valid TOML


def _toml_table(server: dict[str, Any]) -> str:
    lines = [f"[mcp_servers.{NAME}]"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in server.items()]
    return "\n".join(lines) + "\n"


def _blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, header name) of every table; ``""`` for the lines before the first."""
    out: list[tuple[int, int, str]] = []
    start, name = 0, ""
    for i, line in enumerate(lines):
        match = _HEADER.match(line)
        if match and not line.lstrip().startswith("#"):
            out.append((start, i, name))
            start, name = i, match.group(2)
    out.append((start, len(lines), name))
    return out


def _refuse_other_forms(lines: list[str], blocks: list[tuple[int, int, str]]) -> None:
    for start, end, name in blocks:
        for line in lines[start:end]:
            stripped = line.strip()
            if (
                name == "mcp_servers" and re.match(r"^(\"lore\"|'lore'|lore)\s*[.=]", stripped)
            ) or (
                name == "" and re.match(r"^mcp_servers\s*\.\s*(\"lore\"|'lore'|lore)\b", stripped)
            ):
                raise InvalidInputError(
                    f"lore's server is defined outside a [mcp_servers.lore] table ({stripped!r}); "
                    "edit it by hand or move it into such a table",
                    field="mcp_servers.lore",
                )


def _value_end(lines: list[str], i: int) -> int:
    """The index after the last line of the value set on line ``i`` (an array, inline
    table or multi-line string may run over several lines)."""
    depth, quote = 0, ""
    for j in range(i, len(lines)):
        line, k = lines[j], lines[j].index("=") + 1 if j == i else 0
        while k < len(line):
            if quote:
                if line.startswith(quote, k):
                    k, quote = k + len(quote), ""
                    continue
                k += 2 if quote[0] == '"' and line[k] == "\\" else 1
                continue
            char = line[k]
            if char == "#":
                break
            if char in "\"'":
                quote = char * 3 if line.startswith(char * 3, k) else char
                k += len(quote)
                continue
            depth += (char in "[{") - (char in "]}")
            k += 1
        if quote in ('"', "'"):
            quote = ""  # a one-line string cannot run on; let the parser judge the file
        if depth <= 0 and not quote:
            return j + 1
    return len(lines)


def _toml_set(text: str, server: dict[str, Any], path: Path) -> str:
    lines = text.splitlines(keepends=True)
    blocks = _blocks(lines)
    _refuse_other_forms(lines, blocks)
    ours = [b for b in blocks if _OURS.match(b[2])]
    if not ours:
        prefix = text if not text or text.endswith("\n") else text + "\n"
        gap = "\n" if prefix.strip() and not prefix.endswith("\n\n") else ""
        return prefix + gap + _toml_table(server)
    start, end, _ = ours[0]
    body = lines[start + 1 : end]
    last = -1  # the line of the key set before this one: a missing key goes right after it
    for key, value in server.items():
        setting = f"{key} = {_toml_value(value)}\n"
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        found = [i for i, line in enumerate(body) if pattern.match(line)]
        if found:
            body[found[0] : _value_end(body, found[0])] = [setting]
            last = found[0]
            continue
        if last < 0:  # after the table's last non-blank line
            last = max((i for i, line in enumerate(body) if line.strip()), default=-1)
            if last >= 0 and not body[last].endswith("\n"):
                body[last] += "\n"
        last += 1
        body.insert(last, setting)
    return "".join(lines[: start + 1] + body + lines[end:])


def _toml_remove(text: str) -> str:
    lines = text.splitlines(keepends=True)
    blocks = _blocks(lines)
    drop = [(s, e) for s, e, name in blocks if _OURS.match(name) or _OURS_SUB.match(name)]
    if not drop:
        return text
    # A table runs to the next header, so its trailing blank lines go with it and the
    # rest of the file keeps its own spacing; only the end of the file is tidied.
    kept = [line for i, line in enumerate(lines) if not any(s <= i < e for s, e in drop)]
    out = "".join(kept)
    if drop[-1][1] == len(lines):
        out = out.rstrip("\n") + "\n" if out.strip() else ""
    return out


def _check_toml(path: Path, text: str) -> None:
    """Parse the result (Python 3.11+) so a file lore cannot edit safely is left alone."""
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]
    except ModuleNotFoundError:  # Python 3.10: trust the text edit
        return
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(
            f"{path}: not valid TOML after the edit ({exc}); fix the file first", file=str(path)
        ) from None
