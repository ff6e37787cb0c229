"""The page's browser tests: Debian's headless Chromium driven by Selenium through Debian's
chromedriver (the same version as the browser). Without them, the tests marked `browser` are
skipped and the run says so, and why, in one line at the end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .browser import chrome, missing_browser

_SKIPPED = pytest.StashKey[int]()


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    """One headless Chromium for a test file's tests."""
    browser = chrome()
    try:
        yield browser
    finally:
        browser.quit()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing_browser()
    if reason is None:
        return
    browser_items = [item for item in items if item.get_closest_marker("browser")]
    for item in browser_items:
        item.add_marker(pytest.mark.skip(reason=f"browser test: {reason}"))
    config.stash[_SKIPPED] = len(browser_items)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    skipped = config.stash.get(_SKIPPED, 0)
    if skipped:
        terminalreporter.write_line(f"{skipped} browser tests of the page were SKIPPED: {missing_browser()}",
                                    yellow=True, bold=True)
