"""Take the screenshots of ``docs/how-to/ui.md`` (``docs/images/ui/*.png``) from a real
``lore ui`` in headless Chromium, on a store of 2,000 generated records plus the tests'
hand-made ones (a decision with its session, evidence and history; raw observations).

    python scripts/ui_screenshots.py            # needs chromium; rewrites docs/images/ui/
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "images" / "ui"
sys.path.insert(0, str(REPO / "tests" / "ui"))
from headless import Browser  # noqa: E402
from uiserver import build_store  # noqa: E402


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="lore-ui-shots-"))
    root = tmp / "team-memory"
    env = {**os.environ, "LORE_CACHE_DIR": str(tmp / "cache"), "NO_COLOR": "1"}
    env.pop("LORE_DATA_DIR", None)
    subprocess.run(
        [sys.executable, str(REPO / "bench" / "gen_store.py"), str(root), "--n", "2000"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    build_store(root)
    server = subprocess.Popen(
        [sys.executable, "-m", "lore", "--data-dir", str(root), "ui", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tmp,
    )
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    browser = Browser(tmp / "profile", width=1200, height=780)
    OUT.mkdir(parents=True, exist_ok=True)

    def show(route: str, ready: str, name: str, *, then: str | None = None) -> None:
        browser.goto(url + route)
        browser.wait(f"document.querySelector('main').dataset.route === {json.dumps(route)}")
        browser.wait(ready)
        if then:
            browser.eval(then)
            time.sleep(0.5)
        browser.eval("window.scrollTo(0, 0)")
        time.sleep(0.3)
        browser.screenshot(OUT / f"{name}.png")

    try:
        why = "document.querySelector('.hit details.why').open = true"
        results = "document.querySelector('.results[data-ms]')"
        show("#/search?q=redis+session+cache", results, "search", then=why)
        show("#/record/dec-ui-redis", "document.querySelector('#history')", "record")
        show("#/timeline/2025-03", "document.querySelector('.periods')", "timeline")
        grow = (
            "document.querySelector('.lg-node[data-key=\"session-ui-one\"]').click();"
            "setTimeout(() => document.querySelector('.graph-tools [aria-label^=Fit]')"
            ".click(), 200)"
        )
        show("#/graph/dec-ui-redis", "document.querySelector('.lg-focus')", "graph", then=grow)
        show("#/queues", "document.querySelector('#queue-inbox .item')", "queues")
        browser.viewport(390, 780, mobile=True)
        show("#/record/dec-ui-redis", "document.querySelector('#history')", "phone")
        assert browser.errors() == [], browser.errors()
    finally:
        browser.close()
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    for path in sorted(OUT.glob("*.png")):
        print(f"{path.relative_to(REPO)}: {path.stat().st_size // 1024} KB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
