"""The page against a real `serve` with an API key and the built-in tools, which is killed and
started again while it answers: a wrong key is refused, the right one is kept in the tab only, a
tool call shows as one line that opens, and after the restart the page says what happened,
gives the message back and shows the conversation as saved."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..server_helpers import start_process
from .browser import Page, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.model]
KEY = "browser-key-0123456789"


class Served:
    """A real server with a key, that a test may kill and start again on the same port."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self, port: int = 0) -> None:
        self.process, self.url = start_process(self.data_dir, "--port", str(port), "--max-tokens", "96", "--tools",
                                               scripted=False, api_key=KEY)

    @property
    def key(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {KEY}"}

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(60)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, default_gguf: Path) -> Iterator[Served]:
    server = Served(tmp_path_factory.mktemp("page-restart") / "data")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_wrong_key_is_refused_and_the_right_one_stays_in_the_tab(driver: Any, served: Served) -> None:
    driver.get(served.url + "/")
    page = Page(driver, served.url)
    wait_for(lambda: page.visible("#key-dialog"), 30, "the key dialog")
    page.find("#key-input").send_keys("not-the-key-at-all\n")
    wait_for(lambda: "refused" in page.find("#key-error").text, 30, "the refusal")
    assert page.visible("#key-dialog") and page.js("return document.body.dataset.ready") is None
    assert page.js("return sessionStorage.length") == 0
    page.find("#key-input").send_keys(KEY + "\n")
    page.ready()
    assert page.js("return sessionStorage.getItem('local-agent.api-key')") == KEY
    assert page.js("return localStorage.getItem('local-agent.api-key') === null && document.cookie === ''")


def test_a_tool_call_is_one_line_that_opens_to_its_trace(driver: Any, served: Served) -> None:
    page = Page(driver, served.url)
    page.find("#new-chat").click()
    page.say("What is 17 times 23?")
    line = page.last_answer().find_element("css selector", ".tool-line")
    summary = line.find_element("css selector", "summary")
    assert summary.text.startswith("tool calculator(") and "391" in summary.text
    assert not line.find_element("css selector", "pre").is_displayed()
    summary.click()
    trace = line.find_element("css selector", "pre").text
    assert '"expression": "17 * 23"' in trace and "result: 17 * 23 = 391" in trace


def test_a_server_restarted_mid_answer_loses_nothing_saved(driver: Any, served: Served) -> None:
    page = Page(driver, served.url)
    page.find("#new-chat").click()
    page.say("My favourite fruit is mango.")
    name = page.js("return decodeURIComponent(location.hash.split('/')[2])")
    asked = "Tell me a very long story about a lighthouse keeper and the sea."
    page.type(asked)
    wait_for(lambda: len(page.last_answer().find_element("css selector", ".body").text) > 3, 60, "tokens")
    port = served.port
    served.kill()
    wait_for(lambda: "server stopped answering" in page.notice(), 30, "the notice")
    assert page.find("#composer-text").get_attribute("value") == asked  # the message is given back
    served.start(port)
    wait_for(lambda: "Reconnected" in page.notice(), 120, "the page to reconnect")
    assert page.js("return decodeURIComponent(location.hash.split('/')[2])") == name
    transcript = page.find("#transcript").text
    assert "My favourite fruit is mango." in transcript and "lost" not in transcript
    page.find("#composer-text").clear()
    answer = page.say("What is my favourite fruit?")
    assert answer.strip()
