"""The page in headless Chromium against a real `local-agent serve` on 127.0.0.1 and the real
default model: one server and one browser for the module. What a person does: tell a fact and
forget it, stop an answer, resume a terminal session, import a ChatGPT export, chat incognito,
two tabs on one conversation, the keyboard, and axe-core's accessibility checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..page_helpers import chatgpt_export
from ..server_helpers import ROOT, start_process
from .browser import Page, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.model]
MAX_TOKENS = "48"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, default_gguf: Path) -> Iterator[tuple[str, Path]]:
    data_dir = tmp_path_factory.mktemp("page-browser") / "data"
    process, url = start_process(data_dir, "--max-tokens", MAX_TOKENS, scripted=False)
    try:
        yield url, data_dir
    finally:
        process.terminate()
        process.wait(60)


@pytest.fixture
def page(driver: Any, server: tuple[str, Path]) -> Page:
    return Page(driver, server[0]).open("#/chat")


def recall(url: str, query: str) -> list[str]:
    hits = httpx.post(url + "/v1/local-agent/memories/search", json={"query": query, "kinds": ["fact", "turn"]},
                      timeout=120).json()["data"]
    return [hit["text"] for hit in hits]


def cli(data_dir: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LOCAL_AGENT_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "local_agent", *args], cwd=ROOT, input=stdin, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def data_files(data_dir: Path) -> dict[str, tuple[int, int]]:
    return {str(path.relative_to(data_dir)): (path.stat().st_size, path.stat().st_mtime_ns)
            for path in data_dir.rglob("*") if path.is_file() and not path.name.endswith(".lock")}


def test_tell_a_fact_see_it_in_memory_forget_it_and_it_is_gone_from_recall(page: Page, server) -> None:
    url, _ = server
    page.say("My name is Ada and I live in Lisbon.")
    line = wait_for(lambda: page.last_answer().find_element("css selector", ".memory-line").text, 60, "the memory line")
    assert "remembered" in line
    page.go("#/memory")
    item = wait_for(lambda: next((li for li in page.all("#memory-list li") if "Lisbon" in li.text), None), 30,
                    "the fact on the memory page")
    assert "from your message" in item.text
    item.find_element("css selector", "button[aria-expanded]").click()  # where from
    wait_for(lambda: "My name is Ada and I live in Lisbon." in item.text, 30, "its source message")
    assert any("Lisbon" in text for text in recall(url, "Where do I live?"))
    next(b for b in item.find_elements("css selector", "button") if b.text == "Forget").click()
    page.confirm()
    wait_for(lambda: all("Lisbon" not in li.text for li in page.all("#memory-list li")), 30, "the fact to go")
    assert all("Lisbon" not in text for text in recall(url, "Where do I live? Lisbon"))
    page.find("#memory-query").send_keys("Lisbon")
    page.find("#memory-search button[type=submit]").click()
    wait_for(lambda: "Lisbon" in page.find("#memory-count").text, 30, "the search")
    assert all("Lisbon" not in li.text for li in page.all("#memory-list li"))


def test_stream_stop_mid_answer_and_the_next_answer_works(page: Page) -> None:
    before = page.answers()
    page.type("Tell me a long story about a dragon who learns to cook, with many details.")
    lengths: list[int] = []

    def grew_twice() -> bool:  # it streams: the text grows, it does not come at once
        lengths.append(len(page.last_answer().text))
        return len(set(lengths)) >= 3

    wait_for(grew_twice, 60, "tokens to stream in")
    page.find("#composer-text").send_keys("\ue00c")  # Esc stops
    wait_for(lambda: "stopped" in page.last_answer().text and page.visible("#send"), 30, "the answer to stop")
    assert page.answers() == before + 1
    answer = page.say("What is two plus two?")
    assert answer.strip() and "stopped" not in page.last_answer().text


def test_a_terminal_session_resumes_in_the_page_and_the_page_one_in_the_terminal(page: Page, server) -> None:
    url, data_dir = server
    told = cli(data_dir, "ask", "--session", "from-terminal", "--max-tokens", "16", "My cat is called Tom.")
    assert told.returncode == 0, told.stderr
    page.js("location.reload()")
    page.ready()
    link = wait_for(lambda: next((a for a in page.all(".session-link") if "from-terminal" in a.text), None), 30,
                    "the terminal's session in the sidebar")
    link.click()
    wait_for(lambda: "My cat is called Tom." in page.find("#transcript").text, 30, "its transcript")
    page.say("And my dog is called Rex.")
    turns = httpx.get(url + "/v1/local-agent/sessions/from-terminal", timeout=30).json()["turns"]
    assert [turn["content"] for turn in turns][::2] == ["My cat is called Tom.", "And my dog is called Rex."]
    chat = cli(data_dir, "chat", "--session", "from-terminal", "--max-tokens", "16", stdin="What pets do I have?\n")
    assert chat.returncode == 0, chat.stderr
    turns = httpx.get(url + "/v1/local-agent/sessions/from-terminal", timeout=30).json()["turns"]
    assert [turn["content"] for turn in turns][::2] == ["My cat is called Tom.", "And my dog is called Rex.",
                                                       "What pets do I have?"]


def test_import_a_small_chatgpt_export_by_upload(page: Page, tmp_path: Path) -> None:
    export = tmp_path / "conversations.json"
    export.write_bytes(chatgpt_export([
        ("Moving", [("user", "I live in Beeton now."), ("assistant", "Congratulations on the move.")]),
        ("Work", [("user", "I work as a beekeeper."), ("assistant", "That sounds calm.")]),
    ]))
    page.go("#/memory")
    page.find("#import-file").send_keys(str(export))
    page.find("#import-digests").click()  # off: two short conversations need no digest
    page.find("#import-start").click()
    status = wait_for(lambda: "Imported" in page.find("#import-status").text and page.find("#import-status").text,
                      120, "the import to end")
    assert "conversations.json" in status and "4 messages kept" in status
    wait_for(lambda: any("Beeton" in li.text for li in page.all("#memory-list li")), 30, "the imported fact")


def test_incognito_recalls_but_writes_nothing(page: Page, server) -> None:
    _, data_dir = server
    before = data_files(data_dir)
    page.find("#new-chat").click()
    page.find("#incognito").click()
    assert page.visible("#incognito-note")
    page.say("My secret code word is Marmalade.")
    assert "not saved" in page.last_answer().text
    assert data_files(data_dir) == before
    assert [path for path in data_dir.rglob("*") if path.is_file() and b"Marmalade" in path.read_bytes()] == []


def test_a_memory_holding_markup_shows_as_text(page: Page, server) -> None:
    url, _ = server
    hostile = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> **bold**'
    httpx.post(url + "/v1/local-agent/memories", json={"text": hostile}, timeout=60).raise_for_status()
    page.go("#/memory")
    item = wait_for(lambda: next((li for li in page.all("#memory-list li") if "<script>" in li.text), None), 30,
                    "the memory as text")
    assert "<img src=x onerror=" in item.text
    page.go("#/chat")
    page.find("#new-chat").click()
    page.say("Show this: <img src=x onerror=\"window.pwned = 3\"> and <b>tags</b>")
    assert "<img src=x onerror=" in page.last(".turn.user").text
    assert page.js("return window.pwned === undefined && document.querySelectorAll('main img').length === 0")
    assert page.errors() == [] or all("favicon" in error for error in page.errors())


def test_two_tabs_on_one_conversation_lose_nothing(driver: Any, page: Page, server) -> None:
    url, _ = server
    page.find("#new-chat").click()
    page.say("First, from tab one.")
    name = page.js("return decodeURIComponent(location.hash.split('/')[2])")
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")
    other = Page(driver, url).open(f"#/chat/{name}")
    wait_for(lambda: "First, from tab one." in other.find("#transcript").text, 30, "the conversation in tab two")
    other.say("Second, from tab two.")
    driver.switch_to.window(first)
    page.say("Third, from tab one again.")
    wait_for(lambda: "Second, from tab two." in page.find("#transcript").text, 30, "tab one to show tab two's turn")
    assert "elsewhere" in page.notice()
    turns = httpx.get(f"{url}/v1/local-agent/sessions/{name}", timeout=30).json()["turns"]
    assert [turn["content"] for turn in turns][::2] == [
        "First, from tab one.", "Second, from tab two.", "Third, from tab one again."]
    driver.switch_to.window(other.driver.window_handles[-1])
    driver.close()
    driver.switch_to.window(first)


def test_keyboard_enter_sends_and_shift_enter_makes_a_new_line(page: Page) -> None:
    page.find("#new-chat").click()
    page.type("one line\nand another", enter=False)
    assert page.find("#composer-text").get_attribute("value") == "one line\nand another"
    assert page.answers() == 0
    page.type("", enter=True)
    page.finished()
    assert page.find(".turn.user .body").text == "one line\nand another"
    assert page.find("#composer-text").get_attribute("value") == ""
    assert page.js("return document.activeElement.id") == "composer-text"


def test_axe_finds_no_serious_violation_in_any_view(page: Page) -> None:
    page.js("const img = document.createElement('img'); img.id = 'axe-probe'; img.src = '/static/icon.svg';"
            "document.querySelector('main').append(img);")
    assert any(v["id"] == "image-alt" for v in page.axe()), "axe did not run"  # it finds what it should
    page.js("document.getElementById('axe-probe').remove()")
    page.say("Hello!")
    found: dict[str, list[dict[str, Any]]] = {"chat": page.axe()}
    for view in ("memory", "settings"):
        page.go(f"#/{view}")
        page.shows(view)
        found[view] = page.axe()
    page.go("#/memory")
    page.find("#memory-forget-all").click()  # a dialog open
    wait_for(lambda: page.visible("#confirm-dialog"), 10, "the dialog")
    found["dialog"] = page.axe()
    page.find("#confirm-no").click()
    serious = {view: [v for v in violations if v["impact"] in ("serious", "critical")]
               for view, violations in found.items()}
    assert all(not items for items in serious.values()), json.dumps(serious, indent=1)


def test_nothing_scrolls_sideways_on_a_phone(driver: Any, page: Page) -> None:
    from .browser import set_viewport

    try:
        for width, height in ((390, 844), (1280, 800)):
            set_viewport(driver, width, height, mobile=width < 500)
            for view in ("chat", "memory", "settings"):
                page.go(f"#/{view}")
                page.shows(view)
                wide = page.js("const v = document.getElementById(arguments[0] + '-view');"
                               "return [document.documentElement.scrollWidth - innerWidth,"
                               " v.scrollWidth - v.clientWidth]", view)
                assert wide == [0, 0], (width, view, wide)
    finally:
        set_viewport(driver, 1280, 800)


def test_rename_and_delete_and_forget_from_the_sidebar(page: Page, server) -> None:
    url, _ = server
    page.find("#new-chat").click()
    page.say("My sister is called Marta.")
    name = page.js("return decodeURIComponent(location.hash.split('/')[2])")

    def menu_of(label: str) -> Any:
        item = wait_for(lambda: next((li for li in page.all("#session-list li") if label in li.text), None), 30, label)
        item.find_element("css selector", "summary").click()
        return item

    next(b for b in menu_of(name).find_elements("css selector", "button") if b.text == "Rename").click()
    wait_for(lambda: page.visible("#prompt-dialog"), 10, "the rename dialog")
    page.find("#prompt-input").send_keys("Family\n")
    wait_for(lambda: any(li.text.startswith("Family") for li in page.all("#session-list li")), 30, "the new title")
    assert page.find("#chat-title").text == "Family"
    assert httpx.get(f"{url}/v1/local-agent/sessions/{name}", timeout=30).json()["title"] == "Family"
    buttons = menu_of("Family").find_elements("css selector", "button")
    next(b for b in buttons if b.text.startswith("Delete and forget")).click()
    page.confirm()
    wait_for(lambda: all("Family" not in li.text for li in page.all("#session-list li")), 30, "the deletion")
    assert page.find("#chat-title").text == "New chat"
    assert httpx.get(f"{url}/v1/local-agent/sessions/{name}", timeout=30).status_code == 404
    assert all("Marta" not in text for text in recall(url, "What is my sister called? Marta"))


def test_export_is_a_download(driver: Any, page: Page, tmp_path: Path) -> None:
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    page.go("#/memory")
    page.find("#memory-export").click()
    done = wait_for(lambda: list(tmp_path.glob("*.json")), 30, "the download")
    exported = json.loads(done[0].read_text())
    assert "Beeton" in json.dumps(exported)  # the imported fact is in it
    assert done[0].name.startswith("local-agent-memories-")


def test_forget_everything_needs_the_phrase_typed(page: Page, server) -> None:
    url, data_dir = server
    page.go("#/memory")
    page.find("#memory-forget-all").click()
    wait_for(lambda: page.visible("#confirm-dialog"), 10, "the confirmation")
    page.find("#confirm-input").send_keys("forget")
    assert not page.find("#confirm-yes").is_enabled()
    page.find("#confirm-input").send_keys(" everything")
    assert page.find("#confirm-yes").is_enabled()
    page.find("#confirm-yes").click()
    wait_for(lambda: "Everything was forgotten" in page.notice(), 60, "the notice")
    wait_for(lambda: page.all("#memory-list li") == [], 30, "an empty memory")
    assert page.all("#session-list li") == []
    assert httpx.get(url + "/v1/local-agent/memories", timeout=30).json()["total"] == 0
    assert [path for path in data_dir.rglob("*") if path.is_file() and b"Beeton" in path.read_bytes()] == []
