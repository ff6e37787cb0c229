#!/usr/bin/env python
"""Screenshots of the page for docs/ and the README: the chat and the memory page at 1280x800
and at a 390-wide phone size, from a real `local-agent serve` on the default model and a fresh
data dir, after a short conversation typed into the page.

    python scripts/page_screenshots.py [--out docs]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench_page import Server  # noqa: E402

from tests.browser.browser import Page, chrome, missing_browser, set_viewport, wait_for  # noqa: E402

SAID = ["Hello! My name is Ada, I'm a nurse, and I live in Leeds.", "I'm training for a marathon in May.",
        "Where do I live?"]
SIZES = {"": (1280, 800, False), "-phone": (390, 844, True)}


def converse(page: Page) -> None:
    for text in SAID:
        page.say(text)
    page.last_answer().find_element("css selector", ".memory-line summary").click()
    page.js("document.getElementById('notice').hidden = true")


def shoot(page: Page, chat_hash: str, out: Path, suffix: str) -> list[Path]:
    page.go(chat_hash)
    wait_for(lambda: SAID[-1] in page.find("#transcript").text, 30, "the conversation")
    page.js("document.getElementById('transcript').scrollTop = 1e9; document.getElementById('notice').hidden = true")
    chat = out / f"page-chat{suffix}.png"
    page.driver.save_screenshot(str(chat))
    page.go("#/memory")
    wait_for(lambda: page.all("#memory-list li"), 30, "the memory list")
    first = page.all("#memory-list li button[aria-expanded]")[0]
    first.click()
    wait_for(lambda: page.all(".memory-detail:not([hidden])"), 30, "where it came from")
    page.js("document.getElementById('notice').hidden = true; document.getElementById('memory-view').scrollTop = 0")
    memory = out / f"page-memory{suffix}.png"
    page.driver.save_screenshot(str(memory))
    return [chat, memory]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args()
    reason = missing_browser()
    if reason:
        sys.exit(f"cannot take screenshots: {reason}")
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "data", 64)
        driver = chrome()
        try:
            page = Page(driver, server.url).open("#/chat")
            converse(page)
            name = page.js("return location.hash")
            for suffix, (width, height, mobile) in SIZES.items():
                set_viewport(driver, width, height, mobile)
                for path in shoot(page, name, args.out, suffix):
                    print(path)
        finally:
            driver.quit()
            server.close()


if __name__ == "__main__":
    main()
