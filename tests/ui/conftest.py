"""Fixtures for ``lore ui``: the server on a small store (``uiserver``) and one headless
Chromium (``headless``), each shared by a module's tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from uiserver import Served, start_ui, stop_ui


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = start_ui(tmp_path_factory.mktemp("ui"))
    yield served
    code, err = stop_ui(served)
    assert code == 0, err


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from headless import Browser, executable

    if executable() is None:
        pytest.skip("no chromium installed (Debian: apt-get install chromium)")
    chromium = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()
