"""Issue 11, sessions: one writer per session without losing turns (2), incognito words never
reach a file (6), `forget --all` holds against a chat that is still open (7), a bad session file
disables nothing but itself (12), and session names mean what they say (17)."""

from __future__ import annotations

import atexit
import json
import multiprocessing
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from local_agent.config import Settings
from local_agent.errors import InputError, StoreCorruptError
from local_agent.memory.sessions import SessionStore, Turn, validate_session_name
from local_agent.turn.agent import Agent, MemoryParts
from tests.cli_helpers import error_line, run_main
from tests.fakes import ScriptedBackend, ScriptedFactory

SECRET = "Quibbleworth"  # a word no file holds unless we wrote what was said


def _agent(data_dir: Path, name: str, backend=None, memory=None, **settings) -> Agent:
    sessions = SessionStore(data_dir)
    return Agent(backend or ScriptedBackend(default="Fine."), sessions, sessions.load_or_create(name),
                 Settings(max_tokens=16, **settings), memory=memory)


def _files_holding(data_dir: Path, word: str) -> list[Path]:
    return [p for p in data_dir.rglob("*") if p.is_file() and word.encode() in p.read_bytes()]


# -- item 2: several writers on one session ------------------------------------------------------
WRITERS, ROUNDS = 4, 6


def _append_turns(data_dir: str, who: int, start) -> None:
    store = SessionStore(Path(data_dir))
    session = store.load_or_create("shared")  # every writer starts from the same stale view
    start.wait()
    for n in range(ROUNDS):
        session.turns += [Turn("user", f"w{who} q{n}"), Turn("assistant", f"w{who} a{n}")]
        store.save(session)


def _ask_shared(data_dir: str, who: int, start) -> None:
    from local_agent.cli import cli

    backend = ScriptedBackend(default=f"answer {who}")
    start.wait()
    result = CliRunner().invoke(cli, ["ask", "--no-memory", "--session", "shared", "--data-dir", data_dir,
                                      f"question {who}"], obj={"backend_factory": ScriptedFactory(backend)},
                                catch_exceptions=False)
    if result.exit_code != 0:
        raise SystemExit(f"ask failed: {result.output}")


def _run_processes(target, data_dir: Path, count: int) -> None:
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(count)
    processes = [context.Process(target=target, args=(str(data_dir), who, start)) for who in range(count)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [p.exitcode for p in processes] == [0] * count


def test_item02_concurrent_writers_lose_no_turn(tmp_path):
    _run_processes(_append_turns, tmp_path, WRITERS)
    turns = SessionStore(tmp_path).load("shared").turns
    said = [t.content for t in turns]
    assert sorted(said) == sorted(f"w{w} {k}{n}" for w in range(WRITERS) for n in range(ROUNDS) for k in "qa")
    for index in range(0, len(turns), 2):  # each question is followed by its own answer
        assert turns[index].role == "user" and turns[index + 1].content == said[index].replace(" q", " a")


def test_item02_three_asks_on_one_session_keep_every_message(tmp_path):
    _run_processes(_ask_shared, tmp_path, 3)
    said = [t.content for t in SessionStore(tmp_path).load("shared").turns]
    assert sorted(said) == sorted([f"question {w}" for w in range(3)] + [f"answer {w}" for w in range(3)])


def test_item02_two_chats_on_one_session_merge_turns_and_keep_summary(tmp_path):
    first, second = _agent(tmp_path, "both"), _agent(tmp_path, "both")
    first.respond("one from the first")
    second.respond("one from the second")
    second.session.summary, second.session.summarized_upto = "- folded by the second chat", 2
    SessionStore(tmp_path).save(second.session)
    first.respond("two from the first")
    saved = SessionStore(tmp_path).load("both")
    users = [t.content for t in saved.turns if t.role == "user"]
    assert users == ["one from the first", "one from the second", "two from the first"]
    assert saved.summary == "- folded by the second chat" and saved.summarized_upto == 2
    # The first chat now sees the second chat's exchange in its own dialogue.
    assert [t.content for t in first.session.turns if t.role == "user"] == users


def test_item02_clear_still_saves_when_nobody_else_wrote(tmp_path):
    agent = _agent(tmp_path, "solo")
    agent.respond("hello")
    agent.clear()
    agent.respond("again")
    saved = SessionStore(tmp_path).load("solo")
    assert saved.summarized_upto == 2 and len(saved.turns) == 4


# -- item 6: incognito -------------------------------------------------------------------------
class EchoBackend(ScriptedBackend):
    """Answers by repeating the last message it was given, so a summary repeats its dialogue."""

    def _stream(self, messages, settings, json_schema, usage):
        self.replies = [messages[-1].content if json_schema is None else
                        json.dumps({"bullets": [line for line in messages[-1].content.splitlines()
                                                if line.startswith("User:")][:6] or ["nothing"]})]
        yield from super()._stream(messages, settings, json_schema, usage)


def test_item06_incognito_words_reach_no_file(tmp_path):
    from local_agent.memory.index.embedder import Embedder
    from local_agent.memory.store import MemoryStore
    from local_agent.memory.summary import Summarizer

    backend = EchoBackend()
    store = MemoryStore.open(tmp_path, Embedder())
    agent = _agent(tmp_path, "private", backend, MemoryParts(store=store, summarizer=Summarizer(backend)),
                   summary_after_turns=1, keep_recent_turns=1)
    agent.respond("first normal message").memory_work()
    agent.set_incognito(True)
    agent.respond(f"my secret word is {SECRET}")
    agent.set_incognito(False)
    for n in range(3):  # enough turns for the summary to fold the incognito exchange
        agent.respond(f"normal message {n}").memory_work()
    agent.close()
    store.close()
    assert agent.session.summary  # the summary did run
    assert _files_holding(tmp_path, SECRET) == []
    assert _files_holding(tmp_path, "normal message 2") != []


@pytest.fixture
def chat_repl(scripted, isolated_dirs, monkeypatch):
    """Run the chat loop as on a terminal: readline keeps what is typed, exit hooks are caught."""
    readline = pytest.importorskip("readline")
    from local_agent.app import build_runtime
    from local_agent.cli.repl import ChatRepl
    from local_agent.config import Settings

    hooks: list = []
    monkeypatch.setattr(atexit, "register", hooks.append)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    readline.clear_history()

    def run(lines, between=None):
        settings = Settings(data_dir=isolated_dirs)
        runtime = build_runtime(settings, session="talk", memory=False, backend_factory=ScriptedFactory(scripted))
        typed = iter(lines)

        def reader(prompt):
            line = next(typed)
            if callable(line):  # something another process does while the user types
                line()
                line = next(typed)
            readline.add_history(line)  # what input() does on a terminal
            return line

        try:
            ChatRepl(runtime, settings, reader=reader).run()
        finally:
            runtime.close()
        for hook in hooks:
            hook()
        hooks.clear()
        readline.clear_history()
        return runtime

    yield run
    readline.clear_history()


def test_item06_incognito_lines_stay_out_of_readline_history(chat_repl, isolated_dirs):
    chat_repl(["hello there", "/incognito", f"my secret word is {SECRET}", "/incognito", "bye now", "/exit"])
    history = (isolated_dirs / "chat_history").read_text()
    assert "hello there" in history and "bye now" in history
    assert _files_holding(isolated_dirs, SECRET) == []


# -- item 7: forget --all against a running chat -------------------------------------------------
def _forget_all(data_dir: Path) -> None:
    from local_agent.app import opened_memory
    from local_agent.config import Settings

    with opened_memory(Settings(data_dir=data_dir)) as memory:
        memory.forget_all()


def test_item07_forget_all_holds_against_an_open_chat(tmp_path):
    backend = ScriptedBackend(default="Noted.")
    agent = _agent(tmp_path, "open", backend)
    agent.respond(f"my secret word is {SECRET}")
    _forget_all(tmp_path)
    later = agent.respond("a new start")
    assert _files_holding(tmp_path, SECRET) == []
    assert SECRET not in json.dumps([m.content for m in backend.prompts[-1]])  # dropped from the dialogue
    assert any("forgotten" in notice for notice in later.notices)
    assert [t.content for t in SessionStore(tmp_path).load("open").turns] == ["a new start", "Noted."]
    assert not any("forgotten" in notice for notice in agent.respond("and on").notices)  # told once


def test_item07_summary_save_after_forget_writes_nothing_old(tmp_path):
    agent = _agent(tmp_path, "open")
    agent.respond(f"my secret word is {SECRET}")
    _forget_all(tmp_path)
    agent.session.summary, agent.session.summarized_upto = f"- the word is {SECRET}", 2
    SessionStore(tmp_path).save(agent.session)  # what the background summary does
    assert _files_holding(tmp_path, SECRET) == []


def test_item07_chat_exit_does_not_rewrite_history_after_forget(chat_repl, isolated_dirs):
    forget = lambda: _forget_all(isolated_dirs)  # noqa: E731
    chat_repl([f"my secret word is {SECRET}", forget, "after the forget", "/exit"])
    assert _files_holding(isolated_dirs, SECRET) == []


def _store_writer(data_dir: str, opened, forgotten) -> None:
    from local_agent.memory.index.embedder import Embedder
    from local_agent.memory.store import MemoryStore, compaction

    compaction.JOURNAL_MIN_OPS, compaction.JOURNAL_SHARE = 2, 0.0  # compact often, from stale state too
    store = MemoryStore.open(Path(data_dir), Embedder())
    store.add(f"old turn about {SECRET}", "turn")
    store.add(f"old fact about {SECRET}", "fact")
    opened.set()
    forgotten.wait(120)
    for n in range(4):
        store.add(f"new turn {n}", "turn")
    store.close()


def test_item07_open_store_in_another_process_keeps_forget_all(tmp_path):
    from local_agent.memory.index.embedder import Embedder
    from local_agent.memory.store import MemoryStore

    context = multiprocessing.get_context("spawn")
    opened, forgotten = context.Event(), context.Event()
    writer = context.Process(target=_store_writer, args=(str(tmp_path), opened, forgotten))
    writer.start()
    assert opened.wait(120)
    with MemoryStore.open(tmp_path, Embedder()) as store:
        store.forget_all()
    forgotten.set()
    writer.join(120)
    assert writer.exitcode == 0
    assert _files_holding(tmp_path, SECRET) == []
    with MemoryStore.open(tmp_path, Embedder()) as store:
        assert sorted(r.text for r in store.records(kind=None)) == [f"new turn {n}" for n in range(4)]


# -- item 12: bad session files ----------------------------------------------------------------
GOOD = {"version": 1, "name": "good", "created": 1.0, "updated": 2.0, "summary": "", "summarized_upto": 0,
        "turns": [{"role": "user", "content": "hi", "time": 1.0},
                  {"role": "assistant", "content": "hello", "time": 1.5}]}
BAD_VARIANTS: dict[str, dict[str, Any]] = {
    "role5": {"turns": [{"role": 5, "content": "hi", "time": 1.0}]},
    "summary42": {"summary": 42},
    "updatednull": {"updated": None},
    "turnsstring": {"turns": "hi"},
    "contentnull": {"turns": [{"role": "user", "content": None, "time": 1.0}]},
    "turnnotdict": {"turns": [["user", "hi"]]},
    "uptostring": {"summarized_upto": "1"},
    "uptopastend": {"summarized_upto": 9},
    "createdbool": {"created": True},
    "createdinf": {"created": float("inf")},
    "namenumber": {"name": 7},
}


def _write_session(data_dir: Path, file_stem: str, data) -> Path:
    from local_agent.memory.store.datadir import claim_data_dir

    claim_data_dir(data_dir)  # a data dir local-agent made, that a bad file appeared in later
    folder = data_dir / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{file_stem}.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


@pytest.mark.parametrize("variant", sorted(BAD_VARIANTS))
def test_item12_wrong_types_are_a_damaged_file(tmp_path, variant):
    _write_session(tmp_path, variant, {**GOOD, "name": variant, **BAD_VARIANTS[variant]})
    with pytest.raises(StoreCorruptError, match=f"{variant}.json") as caught:
        SessionStore(tmp_path).load(variant)
    assert "\n" not in str(caught.value)


def _a_bad_sessions_folder(data_dir: Path) -> list[str]:
    _write_session(data_dir, "good", GOOD)
    _write_session(data_dir, "role5", {**GOOD, "name": "role5", "updated": 3.0, **BAD_VARIANTS["role5"]})
    _write_session(data_dir, "updatednull", {**GOOD, "name": "updatednull", "updated": None})
    _write_session(data_dir, "foreign", [1, 2, 3])
    _write_session(data_dir, "my notes", "plain words, not JSON")
    (data_dir / "sessions" / "folder.json").mkdir()
    return ["role5.json", "updatednull.json", "foreign.json", "my notes.json", "folder.json"]


def test_item12_listing_skips_bad_files_with_one_warning_each(isolated_dirs, capsys, monkeypatch):
    bad = _a_bad_sessions_folder(isolated_dirs)
    assert [s.name for s in SessionStore(isolated_dirs).list()] == ["good"]
    code, out, err = run_main(["sessions"], capsys, monkeypatch)
    assert code == 0 and out.startswith("good ")
    assert "Traceback" not in err
    warnings = err.strip().splitlines()
    assert len(warnings) == len(bad)
    for name in bad:
        assert sum(name in line for line in warnings) == 1


def test_item12_plain_chat_resumes_the_latest_good_session(scripted, isolated_dirs):
    _a_bad_sessions_folder(isolated_dirs)
    result = CliRunner().invoke(__import__("local_agent.cli", fromlist=["cli"]).cli, ["chat"], input="/exit\n",
                                obj={"backend_factory": ScriptedFactory(scripted)}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "session good" in result.stderr


@pytest.mark.parametrize("variant", ["role5", "summary42", "updatednull"])
def test_item12_asking_in_a_bad_session_is_one_line_error(scripted, isolated_dirs, capsys, monkeypatch, variant):
    _write_session(isolated_dirs, variant, {**GOOD, "name": variant, **BAD_VARIANTS[variant]})
    code, _, err = run_main(["ask", "--no-memory", "--session", variant, "hello"], capsys, monkeypatch,
                            backend=scripted)
    assert code == 1
    assert f"{variant}.json" in error_line(err)


# -- item 17: session names ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["name\n", "name\r\n", "\nname", "na\nme"])
def test_item17_names_with_newlines_are_rejected(tmp_path, name):
    with pytest.raises(InputError):
        validate_session_name(name)
    with pytest.raises(InputError):
        SessionStore(tmp_path).load_or_create(name)


@pytest.mark.parametrize("inner", ["other", "../escape", "x" * 80])
def test_item17_a_session_is_saved_under_its_file_name(tmp_path, inner):
    _write_session(tmp_path, "mine", {**GOOD, "name": inner})
    agent = _agent(tmp_path, "mine")
    assert agent.session.name == "mine"
    agent.respond("one more")
    files = sorted(p.name for p in (tmp_path / "sessions").iterdir())
    assert files == ["mine.json"]
    saved = SessionStore(tmp_path).load("mine")
    assert saved.name == "mine" and [t.content for t in saved.turns][-2:] == ["one more", "Fine."]
