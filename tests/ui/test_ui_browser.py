"""``lore ui`` driven in a real headless Chromium: search and open a record, walk the
timeline from a year to a day and back, grow the graph two hops from a record, promote an
inbox candidate and find it in the files, a hostile record drawn as text, a phone width.

Screenshots for a person land in the test's temporary directory (``screenshots/``); with
``LORE_UI_SHOTS=DIR`` they are written there too (docs/how-to/ui.md's come from here).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from uiserver import Served


def shot(browser: Any, served: Served, name: str, *, full: bool = False) -> Path:
    path = browser.screenshot(served.shots / f"{name}.png", full=full)
    extra = os.environ.get("LORE_UI_SHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / path.name)
    return path


def open_page(browser: Any, served: Served, route: str, ready: str) -> None:
    """Go to ``route`` (a new page, or a new view of this one) and wait until it is drawn."""
    browser.goto(served.url + route)
    browser.wait(f"document.querySelector('main').dataset.route === {json.dumps(route)}")
    browser.wait(ready)


def text(browser: Any, selector: str) -> str:
    value = browser.eval(
        f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent || ''"
    )
    return str(value).strip()


def texts(browser: Any, selector: str) -> list[str]:
    found = browser.eval(
        f"[...document.querySelectorAll({json.dumps(selector)})].map(e => e.textContent.trim())"
    )
    return list(found)


@pytest.fixture(autouse=True)
def no_page_errors(browser: Any) -> Any:
    """Every test ends without a JavaScript error or a refused resource on the page."""
    browser.events.clear()
    yield
    assert browser.errors() == []


def test_search_then_open_a_record(browser: Any, served: Served) -> None:
    browser.viewport(1280, 860)
    open_page(browser, served, "#/", "document.activeElement && document.activeElement.id === 'q'")
    browser.type("#q", "redis session cache")  # the search box has the focus; results follow
    browser.wait("document.querySelector('.results[data-query=\"redis session cache\"]')")
    hits = texts(browser, ".hit .line")
    assert hits[0] == "decision Use Redis for the session cache"
    assert text(browser, ".summary").startswith(f"{len(hits)} result")
    # the score's parts, on demand
    assert browser.eval("document.querySelector('.hit details.why').open") is False
    browser.click(".hit details.why summary")
    assert "bm25" in texts(browser, ".hit details.why dt")
    shot(browser, served, "search")
    browser.click(".hit a.rec")
    browser.wait("document.querySelector('#history')")
    assert text(browser, "h1") == "Use Redis for the session cache"
    assert browser.eval("location.hash") == "#/record/dec-ui-redis"
    fields = dict(zip(texts(browser, ".fields dt"), texts(browser, ".fields dd")))
    assert fields["rationale"] == "sub-millisecond reads"
    assert fields["outcome"] == "successful"  # the revision, folded in
    assert fields["session_id"] == "session-ui-one"
    history = texts(browser, "#history li")
    assert history[0].startswith("created") and history[1].startswith("revised")
    assert "held up under load" in history[1] and "outcome" in history[1]
    assert "Measured p99 of 0.4 ms" in text(browser, "#evidence")
    browser.wait("document.querySelector('#from-session').textContent.includes('Cache work done.')")
    links = texts(browser, "#links tbody tr")
    assert "→referencesfilesrc/cache.py" in [row.replace(" ", "") for row in links]
    assert any(row.startswith("←supports") and "Measured p99" in row for row in links)
    shot(browser, served, "record", full=True)


def test_the_search_box_follows_back_and_forward(browser: Any, served: Served) -> None:
    """With the focus in the search box (where the page puts it), Back shows the earlier
    search's words in the box, not the words of the results that were replaced."""
    browser.viewport(1280, 860)
    open_page(
        browser,
        served,
        "#/search?q=redis",
        "document.querySelector('.results[data-query=\"redis\"]')",
    )
    browser.click("#q")
    browser.goto(served.url + "#/search?q=postgres&kind=decision&limit=50")
    browser.wait("document.querySelector('.results[data-query=\"postgres\"]')")
    form = "[...new FormData(document.querySelector('form.search')).entries()].join(' ')"
    assert (
        browser.eval(form) == "q,postgres kind,decision project, tag, since, until, all, limit,50"
    )
    assert browser.eval("document.activeElement.id") == "q"
    browser.eval("history.back()")
    browser.wait("document.querySelector('.results[data-query=\"redis\"]')")
    assert browser.eval(form) == "q,redis project, tag, since, until, all, limit,20"


def test_walk_the_timeline_from_a_year_to_a_day_and_back(browser: Any, served: Served) -> None:
    open_page(browser, served, "#/timeline", "document.querySelector('.periods')")
    assert text(browser, "h1").startswith("All time")
    steps = [("2025", "months"), ("2025-03", "weeks"), ("2025-W11", "days")]
    for period, lists in steps:
        browser.click(f'.periods a[href^="#/timeline/{period}"]')
        browser.wait(f"document.querySelector('.periods[data-level=\"{lists}\"]')")
        assert text(browser, "h1").startswith(period)
    browser.click('.periods a[href^="#/timeline/2025-03-10"]')
    browser.wait("document.querySelector('ol.day')")
    assert text(browser, "h1") == "2025-03-10 3 records"
    day = texts(browser, "ol.day li")
    assert [line.split(" ", 2)[2] for line in day] == [
        "session Cache work done.",
        "decision Use Redis for the session cache successful",
        "failure redis timed out under load Timeout",
    ]
    assert texts(browser, ".crumbs li") == ["All time", "2025", "2025-03", "2025-W11", "2025-03-10"]
    shot(browser, served, "timeline-day")
    # the digest lines link to their records
    browser.click('ol.day a[href="#/record/dec-ui-redis"]')
    browser.wait("document.querySelector('#history')")
    # and back, level by level, with the browser's back button
    for heading in ("2025-03-10", "2025-W11", "2025-03", "2025", "All time"):
        browser.eval("history.back()")
        browser.wait(
            f"(document.querySelector('h1') || {{}}).firstChild"
            f"?.textContent === {json.dumps(heading)}"
        )
    open_page(browser, served, "#/timeline/2025-03", "document.querySelector('.periods')")
    shot(browser, served, "timeline")
    browser.click('.view-timeline header p a[href^="#/timeline/2025"]')  # "up to 2025"
    browser.wait("document.querySelector('.periods[data-level=\"months\"]')")


def boxes_overlap(browser: Any, selector: str) -> list[str]:
    """Pairs of elements matching ``selector`` whose boxes overlap on screen."""
    found = browser.eval(
        f"[...document.querySelectorAll({json.dumps(selector)})].map(e => {{"
        " const r = e.getBoundingClientRect();"
        " return [e.textContent, r.left, r.top, r.right, r.bottom]; })"
    )
    out = []
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            if a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5 and a[2] < b[4] - 0.5 and b[2] < a[4] - 0.5:
                out.append(f"{a[0]!r} / {b[0]!r}")
    return out


def drawn(browser: Any) -> list[str]:
    return list(
        browser.eval("[...document.querySelectorAll('.lg-node[data-key]')].map(e => e.dataset.key)")
    )


def test_expand_the_graph_two_hops_from_a_record(browser: Any, served: Served) -> None:
    open_page(browser, served, "#/record/dec-ui-redis", "document.querySelector('#links')")
    browser.click('a[href="#/graph/dec-ui-redis"]')
    browser.wait("document.querySelector('#graph-canvas[data-focus=\"dec-ui-redis\"]')")
    first = set(drawn(browser))
    assert first == {"dec-ui-redis", "file:src/cache.py", "session-ui-one", "evi-ui-bench"}
    assert text(browser, ".lg-focus .lg-type") == "decision · focus"
    # hop two: the session the decision came from, grown by a click
    browser.click('.lg-node[data-key="session-ui-one"]')
    browser.wait("document.querySelector('.lg-node[data-key=\"fail-ui-timeout\"]')")
    second = set(drawn(browser))
    assert second - first == {"fail-ui-timeout", "project:shop"}
    assert "produces" in texts(browser, ".lg-rel")
    assert "neighbours" in text(browser, ".side h3")
    # readable: no two node boxes, and no two relation labels, overprint
    assert boxes_overlap(browser, ".lg-node") == []
    assert boxes_overlap(browser, ".lg-rel") == []
    shot(browser, served, "graph")
    # by keyboard: the project node (hop two) grows with Enter, and shrinks again
    browser.eval("document.querySelector('.lg-node[data-key=\"project:shop\"]').focus()")
    browser.key("Enter")
    browser.wait(
        'document.querySelector(\'.lg-node[data-key="project:shop"][aria-expanded="true"]\')'
    )
    browser.key("Enter")
    browser.wait(
        'document.querySelector(\'.lg-node[data-key="project:shop"][aria-expanded="false"]\')'
    )
    # zoom out to see the whole neighbourhood, and back: the boxes shrink, nothing overlaps
    before = browser.eval("document.querySelector('.lg-focus').getBoundingClientRect().width")
    browser.click('.graph-tools button[aria-label="Zoom out"]')
    after = browser.eval("document.querySelector('.lg-focus').getBoundingClientRect().width")
    assert round(after / before, 2) == 0.8 and text(browser, ".graph-tools span") == "80%"
    assert boxes_overlap(browser, ".lg-node") == []
    browser.click('.graph-tools button[aria-label="Actual size"]')
    # a filter by kind hides the failure
    browser.click(".view-graph details.filters summary")
    browser.click('.view-graph input[name="kind"][value="failure"]')
    browser.wait("!document.querySelector('.lg-node[data-key=\"fail-ui-timeout\"]')")


def test_promote_an_inbox_candidate_and_find_it_in_the_files(browser: Any, served: Served) -> None:
    open_page(browser, served, "#/queues", "document.querySelector('#queue-inbox .item')")
    assert texts(browser, "#queue-inbox h2")[0] == "Inbox (3)"
    # (each queue loads on its own: wait for the review queue too before reading it)
    browser.wait("!document.querySelector('#queue-review').textContent.includes('Loading')")
    assert "dec-ui-celery" in text(browser, "#queue-review")  # pending for more than 3 days
    item = '#queue-inbox li[data-id="obs-ui-hitrate"]'
    browser.eval(f"document.querySelector('{item} select[name=\"to\"]').value = 'decision'")
    shot(browser, served, "queues")
    browser.click(f"{item} form.action-promote button")
    browser.wait(f"document.querySelector('{item} .ok')")
    assert text(browser, f"{item} .ok").startswith("✓ Promote: now dec-")
    assert texts(browser, "#queue-inbox h2")[0] == "Inbox (2)"
    new_id = browser.eval(f"document.querySelector('{item} .ok a').textContent")
    # in the files: the decision, derived from the observation, and the observation's revision
    decisions = (served.root / "journal" / "data" / "decisions.jsonl").read_text()
    made = [json.loads(line) for line in decisions.splitlines() if new_id in line]
    assert len(made) == 1
    assert made[0]["decision"] == "The cache hit rate drops right after every deploy"
    assert (made[0]["derived_from"], made[0]["source"]) == ("obs-ui-hitrate", "ui")
    inbox = (served.root / "inbox" / "data" / "observations.jsonl").read_text().splitlines()
    revision = json.loads(inbox[-1])
    assert revision["_op"] == "revise" and revision["id"] == "obs-ui-hitrate"
    assert revision["set"] == {"status": "promoted", "promoted_to": new_id}
    shown = json.loads(served.lore("show", "obs-ui-hitrate", "--json").stdout)
    assert (shown["status"], shown["promoted_to"]) == ("promoted", new_id)
    # and the server sees it at once: the record page of the new decision
    browser.click(f"{item} .ok a")
    browser.wait("document.querySelector('#history')")
    assert text(browser, "h1") == "The cache hit rate drops right after every deploy"


def test_a_hostile_record_renders_as_text(browser: Any, served: Served) -> None:
    open_page(browser, served, "#/record/dec-ui-evil", "document.querySelector('#history')")
    assert browser.eval("window.pwned === undefined")
    assert browser.eval("document.querySelectorAll('main script, main img').length") == 0
    assert browser.eval("document.querySelectorAll('a[href^=\"javascript:\"]').length") == 0
    heading = text(browser, "h1")
    assert heading.startswith("<script>window.pwned=1</script><img src=x onerror=")
    assert heading.endswith("[click me](javascript:window.pwned=3) [U+202E]gnp.exe")
    fields = dict(zip(texts(browser, ".fields dt"), texts(browser, ".fields dd")))
    assert fields["rationale"] == "javascript:window.pwned=4"  # not a link
    assert fields["files"] == "<b>bold</b>.py"
    # the override is shown, not obeyed: the text after it still runs left to right
    assert text(browser, "h1 .bidi") == "[U+202E]"
    shot(browser, served, "hostile")
    # the same record in a search result and in the graph
    open_page(
        browser, served, "#/search?q=pwned+gnp", "document.querySelector('.results[data-ms]')"
    )
    assert "<script>" in text(browser, ".hit .line") and browser.eval("window.pwned === undefined")
    open_page(browser, served, "#/graph/dec-ui-evil", "document.querySelector('.lg-focus')")
    assert text(browser, ".lg-focus .lg-label").startswith("<script>")
    assert browser.eval("window.pwned === undefined")


def test_provenance_and_a_session_page(browser: Any, served: Served) -> None:
    open_page(browser, served, "#/record/obs-ui-ingested", "document.querySelector('#provenance')")
    transcript = served.root.parent / "transcript-4f2a.jsonl"
    assert text(browser, "#provenance p") == (
        f"Extracted from {transcript}, lines 12–14, session 4f2a"
    )
    if browser.eval("fetch('/api/info').then(r => r.json()).then(d => d.source)"):
        # a lore with `lore show --source`: the transcript's lines, in place
        browser.wait("document.querySelector('#provenance .transcript li')")
        lines = texts(browser, "#provenance .transcript li")
        assert lines[0].startswith("12") and "Why do the migrations not run?" in lines[0]
        assert "The deploy script skips migrations." in lines[1]
    open_page(browser, served, "#/sessions", "document.querySelector('.session-row')")
    assert texts(browser, ".session-row .line") == ["Cache work done."]
    browser.click(".session-row a")
    browser.wait("document.querySelector('#session')")
    assert text(browser, "#session .message") == "Cache work done. Next: metrics."
    assert texts(browser, "#session .captured h4") == ["failure (1)", "decision (1)"]
    assert texts(browser, "#session .files li") == ["src/cache.py"]
    shot(browser, served, "session")


def test_a_phone_width_reads_without_sideways_scrolling(browser: Any, served: Served) -> None:
    browser.viewport(390, 844, mobile=True)
    try:
        for route in ("#/record/dec-ui-redis", "#/timeline/2025-03", "#/queues"):
            open_page(browser, served, route, "document.querySelector('main h1')")
            browser.wait("!document.querySelector('main[aria-busy]')")
            assert browser.eval("document.documentElement.scrollWidth") <= 390, route
        # The graph scrolls inside its own box, the page does not.
        open_page(browser, served, "#/graph/dec-ui-redis", "document.querySelector('.lg-focus')")
        assert browser.eval("document.documentElement.scrollWidth") <= 390
        box = "document.querySelector('#graph-canvas')"
        assert browser.eval(f"{box}.getBoundingClientRect().right") <= 390
        assert browser.eval(f"{box}.scrollWidth > {box}.clientWidth")
        shot(browser, served, "phone-queues")
    finally:
        browser.viewport(1280, 860)


CONTRAST = """(() => {
  const channel = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  const lum = (c) => {
    const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map(channel);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const back = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor, m = c.match(/[\\d.]+/g);
      if (m && (m.length < 4 || Number(m[3]) > 0.9)) return c;
    }
    return getComputedStyle(document.documentElement).backgroundColor;
  };
  const low = [];
  for (const el of document.querySelectorAll("header *, main *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length || el.closest("[disabled], .sr-only")) continue;
    const fg = getComputedStyle(el).color, bg = back(el);
    const a = lum(fg), b = lum(bg);
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const what = `${el.tagName}.${el.className}: ${fg} on ${bg}`;
    if (ratio < 4.5) low.push(`${what} = ${ratio.toFixed(2)}`);
  }
  return [...new Set(low)];
})()"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_contrast_and_the_keyboard(browser: Any, served: Served, scheme: str) -> None:
    """Every piece of text on every view has 4.5:1 contrast (WCAG AA), in both colour
    schemes; and a search, a result and a record are reached with the keyboard alone."""
    browser.call(
        "Emulation.setEmulatedMedia",
        features=[{"name": "prefers-color-scheme", "value": scheme}],
    )
    try:
        views = {
            "#/search?q=redis": "document.querySelector('.hit')",
            "#/record/session-ui-one": "document.querySelector('#history')",
            "#/timeline/2025-03": "document.querySelector('.periods')",
            "#/graph/dec-ui-redis": "document.querySelector('.lg-focus')",
            "#/queues": "document.querySelector('#queue-review .item')",
            "#/sessions": "document.querySelector('.session-row')",
        }
        for route, ready in views.items():
            open_page(browser, served, route, ready)
            browser.eval("document.querySelectorAll('details').forEach(d => { d.open = true; })")
            assert browser.eval(CONTRAST) == [], (scheme, route)
    finally:
        browser.call("Emulation.setEmulatedMedia", features=[])
    if scheme == "dark":
        return
    open_page(browser, served, "#/", "document.activeElement.id === 'q'")
    browser.type("#q", "celery")
    browser.wait("document.querySelector('.results[data-query=celery] .hit')")
    for _ in range(12):  # Tab from the search box to the first result's link
        browser.key("Tab")
        if browser.eval("document.activeElement.matches('.hit a.rec')"):
            break
    assert browser.eval("document.activeElement.textContent") == "Queue background jobs with Celery"
    browser.key("Enter")
    browser.wait("location.hash === '#/record/dec-ui-celery' && document.querySelector('#history')")
    assert browser.eval("document.activeElement.tagName") == "H1"  # focus moved to the page


def test_a_long_provenance_is_read_only_when_asked(browser: Any, served: Served) -> None:
    """A session's provenance is its whole transcript: the page names it and reads the
    lines only when the person opens them (a real one is 800 lines, 70,000 pixels)."""
    from lore.components.transfer import Session
    from lore.store.core import Store

    transcript = served.root.parent / "long-session.jsonl"
    transcript.write_text(
        "".join(
            json.dumps({"type": "user", "message": {"role": "user", "content": f"step {n}"}}) + "\n"
            for n in range(1, 301)
        )
    )
    Store(served.root).add(
        [
            Session(
                id="session-ui-long",
                timestamp="2024-01-02T10:00:00.000000Z",
                status="closed",
                message="A long ingested session.",
                source="ingest",
                provenance={"transcript": str(transcript), "session": "long", "lines": [1, 300]},
            )
        ]
    )
    open_page(browser, served, "#/record/session-ui-long", "document.querySelector('#provenance')")
    assert text(browser, "#provenance summary") == "Show the 300 transcript lines"
    assert browser.eval("document.querySelectorAll('#provenance .transcript li').length") == 0
    assert browser.eval("document.documentElement.scrollHeight") < 3000
    browser.click("#provenance summary")
    browser.wait("document.querySelectorAll('#provenance .transcript li').length === 300")
    assert texts(browser, "#provenance .transcript li")[299].startswith("300")
