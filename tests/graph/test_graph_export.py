"""Every export format: node-link JSON, GraphML (parsed back), DOT and Mermaid (syntax
checked), and the HTML page drawn in a real headless browser."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from click.testing import Result


@pytest.fixture
def sample(put: Any) -> None:
    put("decision", id="dec-a1", decision='Use "quotes" <b> & `ticks` [x] in a.py', files=["a.py"])
    put("decision", id="dec-a2", decision="Queue | pipes", related_decisions=["dec-a1"])
    put("failure", id="fail-f1", error_type="Timeout", error_message="slow")
    put("concept", id="concept-c1", name="Caching")


def _export(run: Callable[..., Result], *args: str) -> str:
    result = run("graph", "export", *args)
    assert result.exit_code == 0, result.output
    return result.stdout


EDGES = {
    ("dec-a1", "file:a.py", "references"),
    ("dec-a2", "dec-a1", "relates_to"),
    ("fail-f1", "error-type:Timeout", "instance_of"),
}


def test_json_is_networkx_node_link_data(run: Callable[..., Result], sample: None) -> None:
    data = json.loads(_export(run, "--format", "json"))
    graph = nx.node_link_graph(data, edges="edges")
    assert graph.is_directed() and graph.is_multigraph()
    assert set(graph.edges(keys=True)) == EDGES
    node = graph.nodes["concept-c1"]
    assert node == {"type": "concept", "label": "Caching", "status": "active"}


def test_graphml_parses_back(run: Callable[..., Result], sample: None, tmp_path: Path) -> None:
    out = tmp_path / "g.graphml"
    assert run("graph", "export", "--format", "graphml", "--output", str(out)).exit_code == 0
    graph = nx.read_graphml(out, force_multigraph=True)
    assert {(u, v, d["relation"]) for u, v, d in graph.edges(data=True)} == EDGES
    assert graph.nodes["fail-f1"]["type"] == "failure"
    assert len(graph) == 6


def _dot_structure(text: str) -> tuple[set[str], set[tuple[str, str, str]]]:
    quoted = r'"((?:[^"\\]|\\.)*)"'
    nodes = set(re.findall(rf"^  {quoted} \[label=", text, re.M))
    edges = {
        (a, b, r)
        for a, b, r in re.findall(rf"^  {quoted} -> {quoted} \[label={quoted}\];$", text, re.M)
    }
    return nodes, edges


def test_dot_structure(run: Callable[..., Result], sample: None) -> None:
    text = _export(run, "--format", "dot")
    lines = text.splitlines()
    assert lines[0] == "digraph lore {" and lines[-1] == "}"
    nodes, edges = _dot_structure(text)
    assert edges == EDGES and len(nodes) == 6
    assert '\\"quotes\\"' in text


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz is not installed")
def test_dot_is_accepted_by_graphviz(run: Callable[..., Result], sample: None) -> None:
    done = subprocess.run(
        ["dot", "-Tjson"], input=_export(run, "--format", "dot"), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    drawn = json.loads(done.stdout)
    assert len(drawn["objects"]) == 6 and len(drawn["edges"]) == 3


MERMAID_LINE = re.compile(
    r'^  (n\d+\["[^"<>`%&]+"\]|n\d+ -->\|"[a-z_]+"\| n\d+|classDef t_\w+ fill:#[0-9a-f]{6}'
    r"|class n\d+ t_\w+)$"
)


def test_mermaid_syntax(run: Callable[..., Result], sample: None) -> None:
    lines = _export(run, "--format", "mermaid").splitlines()
    assert lines[0] == "flowchart LR"
    bad = [line for line in lines[1:] if not MERMAID_LINE.match(line)]
    assert bad == []
    assert sum("-->" in line for line in lines) == 3
    assert '  n0["concept: Caching"]' in lines


def test_mermaid_labels_keep_every_character(
    run: Callable[..., Result], put: Any, sample: None
) -> None:
    put("decision", id="dec-a3", decision="Store money as NUMERIC(10,2) {not float} #1; 50%")
    lines = _export(run, "--format", "mermaid").splitlines()
    assert (
        '  n1["decision: Use #quot;quotes#quot; #lt;b#gt; #amp; #96;ticks#96; [x] in a.py"]'
        in lines
    )
    assert '  n2["decision: Queue | pipes"]' in lines
    assert '  n3["decision: Store money as NUMERIC(10,2) {not float} #35;1; 50#37;"]' in lines
    assert '  n2 -->|"relates_to"| n1' in lines


def _mermaid_modules() -> Path | None:
    """node_modules holding Mermaid and jsdom (tests/conftest.py finds it: AGENTS.md)."""
    folder = os.environ.get("LORE_TEST_NODE_MODULES")
    if not folder or not shutil.which("node"):
        return None
    path = Path(folder)
    if not (path / "mermaid" / "package.json").is_file() or not (path / "jsdom").is_dir():
        return None
    return path


def _rendered(text: str) -> str:
    """A label as Mermaid's renderer shows it: its entity placeholders decoded (Mermaid's
    decodeEntities), then the HTML entities they become read as a browser reads them."""
    import html

    return html.unescape(text.replace("ﬂ°°", "&#").replace("ﬂ°", "&").replace("¶ß", ";"))


@pytest.mark.skipif(_mermaid_modules() is None, reason="needs node and Mermaid (see AGENTS.md)")
def test_mermaid_parses_with_mermaids_own_parser(
    run: Callable[..., Result], put: Any, sample: None
) -> None:
    nasty = [
        "NUMERIC(10,2) and ARRAY[1] {x} |y| ;z",
        'a "quoted" <b>bold</b> &amp; `code`',
        "#35; is not an entity here, nor #quot;",
        "%%{init: {'theme': 'dark'}}%% a directive",
        "style n0 fill:#f00; classDef x fill:#0f0;",
        "`leading backtick` then text",
        "graph TD; A-->B; click A call alert()",
        "unicode: café ﬂ° ¶ß 🙂",
    ]
    for n, text in enumerate(nasty):
        put("decision", id=f"dec-x{n}", decision=text)
    source = _export(run, "--format", "mermaid")
    script = Path(__file__).with_name("mermaid_parse.mjs")
    done = subprocess.run(
        ["node", str(script), str(_mermaid_modules())],
        input=source,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    parsed = json.loads(done.stdout)
    assert parsed["ok"], parsed
    assert parsed["type"] == "flowchart-v2"
    graph = json.loads(_export(run, "--format", "json"))
    expected = {
        f"{n['type']}: {' '.join(str(n.get('label') or n['id']).split())}" for n in graph["nodes"]
    }
    labels = {_rendered(v["text"]) for v in parsed["vertices"]}
    assert labels == expected
    assert {v["labelType"] for v in parsed["vertices"]} == {"string"}
    assert sorted(_rendered(e["text"]) for e in parsed["edges"]) == sorted(
        e["relation"] for e in graph["edges"]
    )
    assert all(f"decision: {' '.join(t.split())}" in labels for t in nasty)


def test_mermaid_parser_check_fails_on_a_broken_label(tmp_path: Path) -> None:
    """The parser check itself can fail: a label with a bare quote is refused."""
    modules = _mermaid_modules()
    if modules is None:
        pytest.skip("needs node and Mermaid (see AGENTS.md)")
    done = subprocess.run(
        ["node", str(Path(__file__).with_name("mermaid_parse.mjs")), str(modules)],
        input='flowchart LR\n  n0["a "quote" b"]\n',
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert json.loads(done.stdout)["ok"] is False


def test_focus_exports_a_neighbourhood(run: Callable[..., Result], sample: None) -> None:
    data = json.loads(_export(run, "--focus", "dec-a2", "--hops", "1"))
    assert [n["id"] for n in data["nodes"]] == ["dec-a1", "dec-a2"]
    missing = run("graph", "export", "--focus", "dec-nope")
    assert missing.exit_code == 3


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_html_is_self_contained(run: Callable[..., Result], sample: None) -> None:
    text = _export(run, "--format", "html")
    assert "global.LoreGraphView = " in text  # lore's own view, inlined: no library, no network
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|https?://[^\s\"']+\.(js|css)", text)
    assert text.count("</script>") == 2
    data = json.loads(text.split("var DATA = ", 1)[1].split(";\n", 1)[0])
    assert data["start"] == "dec-a1"  # the most connected record
    assert sorted(map(tuple, data["edges"])) == sorted(EDGES)


@pytest.mark.skipif(_chromium() is None, reason="no chromium installed")
def test_html_draws_a_neighbourhood_in_a_headless_browser(
    run: Callable[..., Result], sample: None, tmp_path: Path
) -> None:
    page = tmp_path / "graph.html"
    assert run("graph", "export", "--format", "html", "-o", str(page)).exit_code == 0
    drawn = _dump(tmp_path, page.as_uri())
    # it starts at dec-a1, the most connected record: itself, the file it names, dec-a2
    assert 'data-nodes-drawn="3"' in drawn
    assert 'data-edges-drawn="2"' in drawn
    assert 'data-focus="dec-a1"' in drawn
    assert "6 nodes, 3 edges in this export" in drawn
    # a node "clicked" through the page's #node= link shows its record
    selected = _dump(tmp_path, page.as_uri() + "#node=fail-f1")
    assert '<h3 id="title">failure fail-f1</h3>' in selected
    assert '"error_message": "slow"' in selected
    assert 'data-nodes-drawn="2"' in selected  # the failure and its error type


HOSTILE = "Beware <!--<script> in templates and </script> tags"


def test_html_data_cannot_end_or_escape_its_script(put: Any, run: Callable[..., Result]) -> None:
    put("decision", id="dec-h1", decision=HOSTILE)
    text = _export(run, "--format", "html")
    data = text.split("var DATA = ", 1)[1].split(";\n", 1)[0]
    assert "dec-h1" in data
    assert "<" not in data  # no "</script", "<!--" or "<script" for the HTML parser to see
    assert json.loads(data)["records"]["dec-h1"]["decision"] == HOSTILE
    assert text.count("</script>") == 2


@pytest.mark.skipif(_chromium() is None, reason="no chromium installed")
def test_html_with_markup_in_a_label_still_draws(
    put: Any, run: Callable[..., Result], tmp_path: Path
) -> None:
    put("decision", id="dec-h1", decision=HOSTILE)
    page = tmp_path / "graph.html"
    assert run("graph", "export", "--format", "html", "-o", str(page)).exit_code == 0
    drawn = _dump(tmp_path, page.as_uri() + "#node=dec-h1")
    assert 'data-nodes-drawn="1"' in drawn
    assert "&lt;!--&lt;script&gt; in templates" in drawn


def _dump(tmp_path: Path, url: str) -> str:
    done = subprocess.run(
        [
            str(_chromium()),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=10000",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
