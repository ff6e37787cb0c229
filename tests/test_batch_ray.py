"""`batch --ray` on one real local Ray cluster (2 CPUs, started once for the test session) with
the real model: the records and each namespace's memories equal a `--parallel 1` run (memory
on over three namespaces, and memory off), an actor killed mid-namespace has its lines run
again without duplicates, a run stopped at a bad line resumes to the same result."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from local_agent.backends import create_backend
from local_agent.backends.base import Backend
from local_agent.backends.generation import Usage
from local_agent.backends.probe import BackendChoice
from local_agent.cli import main
from local_agent.config import Settings, load_settings
from local_agent.conversations.batch import parse_lines
from local_agent.conversations.ray_batch import RayBatch
from local_agent.conversations.ray_cluster import import_ray, init_local, short_temp_dir
from local_agent.memory.store import MemoryStore
from local_agent.memory.store.datadir import namespace_data_dir
from local_agent.types import GenerationSettings, Message

pytestmark = pytest.mark.model

ROOT = Path(__file__).resolve().parent.parent
LINES: list[dict[str, Any] | str] = [
    {"user": "ann", "session": "a1", "input": "My favourite colour is green."},
    {"user": "bob", "session": "b1", "input": "I live in Porto."},
    {"user": "cy", "session": "c1", "input": "My dog is called Rex."},
    {"user": "ann", "session": "a1", "input": "What is my favourite colour?"},
    {"user": "bob", "session": "b2", "input": "Where do I live?"},
    "not json",
    {"user": "cy", "session": "c2", "input": "What is my dog called?"},
]
USERS = ("ann", "bob", "cy")


def write_input(path: Path, lines: Sequence[dict[str, Any] | str]) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def comparable(text: str) -> list[dict[str, Any]]:
    """Records without what depends on timing: timings, memory ids, and recall scores (a turn
    memory's score moves with how long ago it was said: two runs in order differ there too)."""
    records = [json.loads(line) for line in text.splitlines()]
    for record in records:
        record.pop("timings", None)
        for key in ("memories_saved", "memories_recalled"):
            for memory in record.get(key) or []:
                memory.pop("id", None)
                memory.pop("score", None)
    return records


def memories(data_dir: Path, embedder: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Each namespace's memories, in the order stored, ids and times aside."""
    found = {}
    for user in USERS:
        with MemoryStore.open(namespace_data_dir(data_dir, user), embedder) as store:
            found[user] = [(r.kind, r.text, r.active, r.key) for r in store.records(include_inactive=True)]
    return found


def local_run(source: Path, data_dir: Path, out: Path, *flags: str) -> int:
    """`batch --parallel 1` (the reference) in its own process."""
    env = {**os.environ, "LOCAL_AGENT_DATA_DIR": str(data_dir), "LOCAL_AGENT_CONFIG": str(data_dir / "no.toml"),
           "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "local_agent", "batch", str(source), "-o", str(out), "-q", *flags]
    return subprocess.run(command, env=env, capture_output=True, check=False, timeout=600).returncode


def cli(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        obj: dict[str, Any] | None = None) -> tuple[int, str]:
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["local-agent", *args])
    try:
        main(obj)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    return code, capsys.readouterr().err


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[ModuleType]:
    ray = import_ray(local=True)
    temp = short_temp_dir()
    init_local(ray, temp, cpus=2)
    yield ray
    ray.shutdown()
    shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The input, and the data dir and output of a `--parallel 1` run of it."""
    folder = tmp_path_factory.mktemp("reference")
    source = write_input(folder / "in.jsonl", LINES)
    assert local_run(source, folder / "data", folder / "out.jsonl") == 1  # the bad line failed
    return source, folder / "data", (folder / "out.jsonl").read_text()


def test_memory_on_over_three_namespaces_equals_a_run_in_order(ray_cluster, reference, tmp_path, monkeypatch,
                                                               capsys, embedder):
    source, reference_data, reference_out = reference
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(tmp_path / "ray"))
    out = tmp_path / "ray.jsonl"
    code, err = cli(["batch", str(source), "-o", str(out), "-q", "--ray"], monkeypatch, capsys)
    assert code == 1 and "1 of 7 lines failed" in err  # the bad line, and the batch went on
    records = comparable(out.read_text())
    assert records == comparable(reference_out)
    assert records[5]["line"] == 6 and records[5]["error"].startswith("invalid JSON")
    assert memories(tmp_path / "ray", embedder) == memories(reference_data, embedder)
    assert "one memory namespace" not in err


def test_the_local_cluster_is_private(ray_cluster):
    assert os.environ["RAY_USAGE_STATS_ENABLED"] == "0"
    assert {node["NodeManagerAddress"] for node in ray_cluster.nodes()} == {"127.0.0.1"}
    assert ray_cluster.util.get_node_ip_address() == "127.0.0.1"


def test_ray_is_not_imported_without_ray():
    code = ("import sys, local_agent.cli, local_agent.cli.batch_cmd, local_agent.cli.chat, "
            "local_agent.conversations.ray_batch; sys.exit('ray' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False, timeout=120).returncode == 0


def test_memory_off_equals_a_run_in_order(ray_cluster, tmp_path, monkeypatch, capsys):
    """Two sessions, each on an actor of its own. (Sessions whose turns alternate are not
    compared: with --no-memory a run in order keeps no session file, and going back to a
    session it left starts that session's dialogue afresh.)"""
    lines = [{"session": f"s{n // 2}", "input": text} for n, text in enumerate(
        ["Hello, I am Ana.", "What is my name?", "Name a fruit.", "Name another one."])]
    source = write_input(tmp_path / "in.jsonl", lines)
    assert local_run(source, tmp_path / "local", tmp_path / "local.jsonl", "--no-memory") == 0
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(tmp_path / "ray"))
    code, err = cli(["batch", str(source), "-o", str(tmp_path / "ray.jsonl"), "-q", "--no-memory", "--ray"],
                    monkeypatch, capsys)
    assert code == 0, err
    assert comparable((tmp_path / "ray.jsonl").read_text()) == comparable((tmp_path / "local.jsonl").read_text())


def test_one_namespace_with_memory_on_is_said_at_start(ray_cluster, tmp_path, monkeypatch, capsys):
    source = write_input(tmp_path / "in.jsonl", [{"session": "s", "input": "Hi."}, "[1]"])
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(tmp_path / "ray"))
    code, err = cli(["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "-q", "--ray"], monkeypatch, capsys)
    assert code == 1 and "one memory namespace" in err and "--no-memory" in err
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [record["error"] for record in records] == [None, "each line must be a JSON object"]


@dataclass(frozen=True)
class DiesOnce:
    """Loads the real model; the first process to be asked about `text` is killed (SIGKILL),
    as a node that goes away, and leaves `marker` so that the restarted actor goes on."""

    marker: Path
    text: str

    def __call__(self, settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]:
        backend, choice = create_backend(settings, model=model)
        original = backend._stream

        def stream(messages: Sequence[Message], generation: GenerationSettings, schema: Any, usage: Usage) -> Any:
            if self.text in messages[-1].content and not self.marker.exists():
                self.marker.touch()
                os.kill(os.getpid(), signal.SIGKILL)
            return original(messages, generation, schema, usage)

        backend._stream = stream  # type: ignore[method-assign,assignment]
        return backend, choice


def test_a_killed_actor_has_its_namespace_run_again_without_duplicates(ray_cluster, reference, tmp_path,
                                                                       monkeypatch, capsys, embedder):
    source, reference_data, reference_out = reference
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(tmp_path / "ray"))
    settings = load_settings()
    items = list(parse_lines(source.read_bytes().splitlines(keepends=True), plain_text=False, settings=settings))
    marker = tmp_path / "killed"
    out = tmp_path / "ray.jsonl"
    with out.open("w") as sink:
        job = RayBatch(settings, sink, backend_factory=DiesOnce(marker, "Where do I live?"), warn=lambda _: None)
        failed, written = job.run(items)
    assert marker.exists() and job.retried == [2]  # bob's lane (lines 2 and 5) ran again
    assert (failed, written) == (1, 7)
    assert comparable(out.read_text()) == comparable(reference_out)
    assert memories(tmp_path / "ray", embedder) == memories(reference_data, embedder)


def test_a_run_stopped_at_a_bad_line_resumes_to_the_same_result(ray_cluster, reference, tmp_path, monkeypatch,
                                                                capsys, embedder):
    source, reference_data, reference_out = reference
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(tmp_path / "ray"))
    out = tmp_path / "ray.jsonl"
    code, _ = cli(["batch", str(source), "-o", str(out), "-q", "--fail-fast", "--ray"], monkeypatch, capsys)
    assert code == 1 and [json.loads(line)["line"] for line in out.read_text().splitlines()] == [1, 2, 3, 4, 5, 6]
    code, _ = cli(["batch", str(source), "-o", str(out), "-q", "--resume", "--ray"], monkeypatch, capsys)
    assert code == 1  # the bad line fails again; the lines after it are answered
    records = comparable(out.read_text())
    expected = comparable(reference_out)
    assert records == [*expected[:6], expected[5], expected[6]]  # the bad line's record twice, as a local resume
    assert memories(tmp_path / "ray", embedder) == memories(reference_data, embedder)  # no memory twice
