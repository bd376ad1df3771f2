"""Writing the graph out: NetworkX node-link JSON, GraphML, Graphviz DOT, Mermaid and a
self-contained interactive HTML page. Nodes and edges are written in sorted order, so
the same files always give byte-identical exports.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lore.errors import UsageError
from lore.graph.snapshot import Snapshot

FORMATS = ("json", "graphml", "dot", "mermaid", "html")
COLORS = {
    "decision": "#4e79a7",
    "pattern": "#59a14f",
    "anti-pattern": "#e15759",
    "concept": "#b07aa1",
    "lesson": "#edc948",
    "failure": "#f28e2b",
    "error-type": "#ff9da7",
    "observation": "#76b7b2",
    "evidence": "#9c755f",
    "goal": "#d37295",
    "session": "#bab0ac",
    "project": "#8cd17d",
    "file": "#a0cbe8",
}


def subgraph(snapshot: Snapshot, focus: str | None = None, hops: int = 1) -> Any:
    """The whole graph, or the neighbourhood of ``focus``, as a new graph in sorted order."""
    import networkx as nx

    from lore.graph.queries import MAX_HOPS, node_key, within

    graph = snapshot.graph
    if focus is not None:
        if not 1 <= hops <= MAX_HOPS:
            raise UsageError(f"--hops must be between 1 and {MAX_HOPS}")
        keep = set(within(snapshot, [node_key(snapshot, focus)], hops))
    else:
        keep = set(graph.nodes)
    out = nx.MultiDiGraph()
    for key in sorted(keep):
        attrs = graph.nodes[key]
        out.add_node(key, **{k: attrs[k] for k in sorted(attrs)})
    edges = sorted((u, v, k) for u, v, k in graph.edges(keys=True) if u in keep and v in keep)
    for u, v, k in edges:
        out.add_edge(u, v, key=k, relation=k)
    return out


def render(graph: Any, fmt: str, records: dict[str, dict[str, Any]] | None = None) -> str:
    if fmt == "json":
        return to_json(graph)
    if fmt == "graphml":
        return to_graphml(graph)
    if fmt == "dot":
        return to_dot(graph)
    if fmt == "mermaid":
        return to_mermaid(graph)
    if fmt == "html":
        return to_html(graph, records or {})
    raise UsageError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def to_json(graph: Any) -> str:
    import networkx as nx

    data = nx.node_link_data(graph, edges="edges")
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# Characters XML 1.0 does not allow (controls but tab, newline and return; surrogates;
# U+FFFE and U+FFFF): a GraphML file holding one is not well-formed, so no tool reads it.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value: Any) -> Any:
    """A string with the characters XML cannot hold written as ``\\xNN`` (visible, and
    read back as the same text); anything else as it is."""
    if not isinstance(value, str) or not _NOT_XML.search(value):
        return value
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", value)


def to_graphml(graph: Any) -> str:
    import networkx as nx

    clean = nx.relabel_nodes(graph, {n: _xml_text(n) for n in graph.nodes}, copy=True)
    for _, attrs in clean.nodes(data=True):
        for key, value in attrs.items():
            attrs[key] = _xml_text(value)
    for _, _, attrs in clean.edges(data=True):
        for key, value in attrs.items():
            attrs[key] = _xml_text(value)
    return "\n".join(nx.generate_graphml(clean)) + "\n"


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def to_dot(graph: Any) -> str:
    lines = ["digraph lore {", "  rankdir=LR;", '  node [shape=box, style="rounded,filled"];']
    for key, attrs in graph.nodes(data=True):
        label = f"{attrs.get('type')}: {attrs.get('label', '')}"
        color = COLORS.get(str(attrs.get("type")), "#dddddd")
        lines.append(
            f"  {_dot_quote(key)} [label={_dot_quote(label)}, fillcolor={_dot_quote(color)}];"
        )
    for u, v, k in graph.edges(keys=True):
        lines.append(f"  {_dot_quote(u)} -> {_dot_quote(v)} [label={_dot_quote(k)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# Mermaid labels are quoted strings ("..."), in which every character but the quote is
# allowed; Mermaid's entity codes (#quot;, #35;) write the rest, as its docs describe.
# Encoded too: "#" (it starts an entity), "<", ">" and "&" (a label is HTML: "<b>" would
# be bold), "`" (a leading one makes a Markdown string), "%" ("%%{init: ...}%%" anywhere
# is a directive), the two characters Mermaid's renderer uses to stand for entities
# ("ﬂ", "¶"), and, in a label that holds "style" or "classDef", ":" (the renderer
# mangles "style...:#...;" there).
_MERMAID_ENTITIES = {
    "#": "#35;",
    '"': "#quot;",
    "<": "#lt;",
    ">": "#gt;",
    "&": "#amp;",
    "`": "#96;",
    "%": "#37;",
    "\ufb02": "#64258;",
    "\u00b6": "#182;",
}
_MERMAID_SPECIAL = re.compile("[" + re.escape("".join(_MERMAID_ENTITIES)) + "]")


def _mermaid_text(text: str) -> str:
    """``text`` (whitespace collapsed) as the inside of a quoted Mermaid label."""
    flat = " ".join(text.split()) or "-"
    out = _MERMAID_SPECIAL.sub(lambda m: _MERMAID_ENTITIES[m.group()], flat)
    if "style" in flat or "classDef" in flat:
        out = out.replace(":", "#58;")
    return f'"{out}"'


def to_mermaid(graph: Any) -> str:
    ids = {key: f"n{i}" for i, key in enumerate(graph.nodes)}
    lines = ["flowchart LR"]
    for key, attrs in graph.nodes(data=True):
        label = _mermaid_text(f"{attrs.get('type')}: {attrs.get('label', '') or key}")
        lines.append(f"  {ids[key]}[{label}]")
    for u, v, k in graph.edges(keys=True):
        lines.append(f"  {ids[u]} -->|{_mermaid_text(k)}| {ids[v]}")
    types = sorted({str(a.get("type")) for _, a in graph.nodes(data=True)})
    for type_ in types:
        name = "t_" + re.sub(r"\W", "_", type_)
        lines.append(f"  classDef {name} fill:{COLORS.get(type_, '#dddddd')}")
    for key, attrs in graph.nodes(data=True):
        lines.append(
            f"  class {ids[key]} t_{re.sub(r'[^0-9A-Za-z_]', '_', str(attrs.get('type')))}"
        )
    return "\n".join(lines) + "\n"


def to_html(graph: Any, records: dict[str, dict[str, Any]]) -> str:
    """One self-contained page: lore's graph view (``view.js``, the one ``lore ui`` uses)
    and the graph's nodes, edges and records inlined; it starts at the most connected
    record (or ``page.html#node=ID``) and grows a neighbourhood click by click."""
    from importlib.resources import files

    here = files("lore.graph")
    view = (here / "view.js").read_text(encoding="utf-8")
    css = (here / "view.css").read_text(encoding="utf-8")
    page = (here / "page.html").read_text(encoding="utf-8")
    nodes = {
        key: {"type": attrs.get("type"), "label": attrs.get("label") or key}
        for key, attrs in graph.nodes(data=True)
    }
    edges = [[u, v, k] for u, v, k in graph.edges(keys=True)]
    details = {
        key: records.get(key) or {"id": key, **attrs} for key, attrs in graph.nodes(data=True)
    }
    data = json.dumps(
        {
            "nodes": nodes,
            "edges": edges,
            "records": details,
            "colors": COLORS,
            "start": _start(graph, records),
        },
        sort_keys=True,
    )
    # Inside <script>, "</script" ends the element and "<!--<script" hides its end from
    # the HTML parser: no "<" at all (the JSON escape is still JSON and JavaScript).
    data = data.replace("<", "\\u003c")
    view = view.replace("</script", "<\\/script")
    page = page.replace("/*VIEWCSS*/", css).replace("/*VIEW*/", view)
    return page.replace("/*DATA*/", data)


def _start(graph: Any, records: dict[str, dict[str, Any]]) -> str | None:
    """Where the page starts: the record with the most edges (then the smallest key)."""
    keys = [k for k in graph.nodes if k in records] or list(graph.nodes)
    if not keys:
        return None
    return min(keys, key=lambda k: (-graph.degree(k), k))
