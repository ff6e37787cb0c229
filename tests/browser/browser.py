"""Driving the page in headless Chromium: the browser, waiting for the page's own signs (an
answer finished, a notice shown), and axe-core's checks. Nothing is downloaded: Selenium is
given Debian's chromium and chromedriver by path, so Selenium Manager never runs."""

from __future__ import annotations

import importlib.util
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

VENDOR = Path(__file__).with_name("vendor")
CHROMIUM_NAMES = ("chromium", "chromium-browser")
DRIVER_NAMES = ("chromedriver",)
INSTALL = "apt-get install chromium chromium-driver; .ci/run does it"


def _which(names: tuple[str, ...]) -> str | None:
    return next((path for path in map(shutil.which, names) if path), None)


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[dev]')"
    if _which(CHROMIUM_NAMES) is None:
        return f"no chromium on PATH ({INSTALL})"
    if _which(DRIVER_NAMES) is None:
        return f"no chromedriver on PATH ({INSTALL})"
    return None


def chrome(width: int = 1280, height: int = 800) -> Any:
    """A headless Chromium whose page area is `width` x `height` CSS pixels."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(_which(CHROMIUM_NAMES))
    for argument in ("--headless=new", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking", f"--window-size={width},{height}"):
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium's sandbox refuses to run as root
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(_which(DRIVER_NAMES))))
    set_viewport(driver, width, height)
    return driver


def set_viewport(driver: Any, width: int, height: int, mobile: bool = False) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def wait_for(check: Callable[[], Any], timeout: float = 120.0, what: str = "the page") -> Any:
    """`check()`'s first truthy value, polled; AssertionError naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = check()
            if value:
                return value
        except Exception as exc:  # an element replaced meanwhile: look again
            last = exc
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}" + (f" (last error: {last})" if last else ""))


class Page:
    """The page in one tab, and what a person does there."""

    def __init__(self, driver: Any, url: str) -> None:
        self.driver = driver
        self.url = url

    def open(self, fragment: str = "#/chat") -> Page:
        self.driver.get(self.url + "/" + fragment)
        self.ready()
        return self

    def ready(self) -> None:
        wait_for(lambda: self.js("return document.body.dataset.ready === 'true'"), 60, "the page to start")

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def find(self, css: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def last(self, css: str) -> Any:
        """The last element `css` selects (`:last-of-type` counts tags, not classes)."""
        found = self.all(css)
        assert found, f"nothing matches {css}"
        return found[-1]

    def visible(self, css: str) -> bool:
        return any(element.is_displayed() for element in self.all(css))

    def type(self, text: str, *, enter: bool = True) -> None:
        from selenium.webdriver.common.keys import Keys

        box = self.find("#composer-text")
        box.click()
        for index, line in enumerate(text.split("\n")):
            if index:
                box.send_keys(Keys.SHIFT, Keys.ENTER)
            box.send_keys(line)
        if enter:
            box.send_keys(Keys.ENTER)

    def answers(self) -> int:
        return len(self.all(".turn.assistant"))

    def say(self, text: str, timeout: float = 180.0) -> str:
        """Send `text` and wait until its answer has finished; the answer's text."""
        self.type(text)
        wait_for(lambda: self.js(
            "const turns = [...document.querySelectorAll('#transcript .turn')];"
            "return turns.length > 1 && turns.at(-1).classList.contains('assistant')"
            " && turns.at(-2).querySelector('.body').innerText.trim() === arguments[0]", text.strip()),
            10, "the answer to start")
        return self.finished(timeout)

    def finished(self, timeout: float = 180.0) -> str:
        wait_for(lambda: "streaming" not in self.last_answer().get_attribute("class") and self.visible("#send"),
                 timeout, "the answer to finish")
        return str(self.last(".turn.assistant .body").text)

    def last_answer(self) -> Any:
        return self.last(".turn.assistant")

    def shows(self, view: str) -> None:
        """Wait until the page shows `view` (chat, memory or settings)."""
        wait_for(lambda: self.js("return document.body.dataset.view") == view, 10, f"the {view} view")

    def notice(self) -> str:
        """The last notice the page showed (it hides itself after a few seconds)."""
        return str(self.js("return document.getElementById('notice').textContent"))

    def go(self, fragment: str) -> None:
        self.js("location.hash = arguments[0]", fragment)

    def confirm(self, phrase: str | None = None) -> None:
        wait_for(lambda: self.visible("#confirm-dialog"), 10, "the confirmation")
        if phrase is not None:
            self.find("#confirm-input").send_keys(phrase)
        self.find("#confirm-yes").click()
        wait_for(lambda: not self.visible("#confirm-dialog"), 10, "the confirmation to close")

    def errors(self) -> list[str]:
        """The browser console's errors since the last call (a CSP refusal shows here)."""
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def axe(self) -> list[dict[str, Any]]:
        """axe-core's violations on the page as it is now (vendor/axe.min.js, injected by the
        driver: the page itself never loads it)."""
        if not self.js("return typeof window.axe === 'object'"):
            self.js((VENDOR / "axe.min.js").read_text(encoding="utf-8"))
        result = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations), e => done(String(e)));")
        assert isinstance(result, list), result
        return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
                 "nodes": [node["target"] for node in v["nodes"]][:5]} for v in result]
