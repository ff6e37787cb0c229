"""Issue 11, batch and settings: the batch never writes over its input, resumes into valid
JSON Lines, keeps its output private, turns any bad line (deeply nested, out-of-range settings,
unknown keys) into an error record, and settings reject values they used to coerce silently."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from local_agent.config import load_settings
from local_agent.conversations.batch import parse_lines
from local_agent.errors import ConfigError

from .cli_helpers import error_line, run_main

GOOD = b'{"session": "s", "input": "hello"}\n'


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _batch(args: list[str], capsys, monkeypatch, stdin: bytes | None = None, backend=None) -> tuple[int, str, str]:
    return run_main(["batch", *args, "--quiet", "--no-memory"], capsys, monkeypatch, stdin=stdin, backend=backend)


# -- item 3: the output is never the input ---------------------------------------------------
@pytest.mark.parametrize("resume", [False, True])
def test_item03_output_same_as_input_is_refused(scripted, tmp_path, capsys, monkeypatch, resume):
    source = tmp_path / "in.jsonl"
    source.write_bytes(GOOD * 2)
    code, _out, err = _batch([str(source), "-o", str(source), *(["--resume"] if resume else [])],
                            capsys, monkeypatch, backend=scripted)
    assert code == 1 and "same file" in error_line(err)
    assert source.read_bytes() == GOOD * 2
    assert scripted.prompts == []  # refused before any answer


@pytest.mark.parametrize("link", ["symlink", "hardlink", "relative"])
def test_item03_output_reaching_the_input_another_way_is_refused(scripted, tmp_path, capsys, monkeypatch, link):
    source = tmp_path / "in.jsonl"
    source.write_bytes(GOOD)
    other = tmp_path / "other.jsonl"
    if link == "symlink":
        other.symlink_to(source)
    elif link == "hardlink":
        os.link(source, other)
    else:
        other = tmp_path / "sub" / ".." / "in.jsonl"
        (tmp_path / "sub").mkdir()
    code, _, err = _batch([str(source), "-o", str(other), "--resume"], capsys, monkeypatch, backend=scripted)
    assert code == 1 and "same file" in error_line(err)
    assert source.read_bytes() == GOOD


def test_item03_stdin_redirected_from_the_output_is_refused(scripted, tmp_path, capsys, monkeypatch):
    import sys

    out = tmp_path / "out.jsonl"
    out.write_bytes(GOOD)
    with out.open("r", encoding="utf-8") as handle:
        monkeypatch.setattr(sys, "stdin", handle)
        code, _, err = run_main(["batch", "-", "-o", str(out), "--quiet", "--no-memory"], capsys, monkeypatch,
                                backend=scripted)
    assert code == 1 and "same file" in error_line(err)
    assert out.read_bytes() == GOOD


# -- item 4: --resume after a torn last line --------------------------------------------------
def test_item04_resume_after_torn_line_writes_valid_jsonl(scripted, tmp_path, capsys, monkeypatch):
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"session": "s", "input": "one"}\n{"session": "s", "input": "two"}\n')
    out = tmp_path / "out.jsonl"
    assert _batch([str(source), "-o", str(out)], capsys, monkeypatch, backend=scripted)[0] == 0
    first, second = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(first + second[: len(second) // 2])  # killed while writing line 2's record
    code, _, err = _batch([str(source), "-o", str(out), "--resume"], capsys, monkeypatch, backend=scripted)
    assert code == 0, err
    records = _records(out)  # every line parses
    assert [(r["line"], r["error"]) for r in records] == [(1, None), (2, None)]
    assert out.read_bytes().endswith(b"\n")


def test_item04_complete_last_record_without_newline_is_kept(scripted, tmp_path, capsys, monkeypatch):
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"session": "s", "input": "one"}\n{"session": "s", "input": "two"}\n')
    out = tmp_path / "out.jsonl"
    assert _batch([str(source), "-o", str(out)], capsys, monkeypatch, backend=scripted)[0] == 0
    out.write_bytes(out.read_bytes().splitlines(keepends=True)[0].rstrip(b"\n"))
    assert _batch([str(source), "-o", str(out), "--resume"], capsys, monkeypatch, backend=scripted)[0] == 0
    assert [r["line"] for r in _records(out)] == [1, 2]
    assert len(scripted.prompts) == 3  # line 1 was not answered twice


# -- item 10: the output holds recalled memories, so it is private ---------------------------
def test_item10_batch_output_mode(scripted, tmp_path, capsys, monkeypatch):
    old = os.umask(0o022)
    try:
        source = tmp_path / "in.jsonl"
        source.write_bytes(GOOD)
        out = tmp_path / "out.jsonl"
        assert _batch([str(source), "-o", str(out)], capsys, monkeypatch, backend=scripted)[0] == 0
        assert out.stat().st_mode & 0o777 == 0o600
        out.chmod(0o644)  # an older run, or a copy: --resume makes it private again
        assert _batch([str(source), "-o", str(out), "--resume"], capsys, monkeypatch, backend=scripted)[0] == 0
        assert out.stat().st_mode & 0o777 == 0o600
        out.chmod(0o664)
        assert _batch([str(source), "-o", str(out)], capsys, monkeypatch, backend=scripted)[0] == 0
        assert out.stat().st_mode & 0o777 == 0o600 and len(_records(out)) == 1
    finally:
        os.umask(old)


# -- item 13: deeply nested JSON is one bad line, not a crash ----------------------------------
@pytest.mark.parametrize("nested", [b"[" * 100_000, b'{"a":' * 50_000, b'{"input": "x", "seed": ' + b"[" * 100_000])
def test_item13_batch_deeply_nested_line_is_an_error_record(scripted, tmp_path, capsys, monkeypatch, nested):
    source = tmp_path / "in.jsonl"
    source.write_bytes(GOOD + nested + b"\n" + GOOD)
    out = tmp_path / "out.jsonl"
    code, _, err = _batch([str(source), "-o", str(out)], capsys, monkeypatch, backend=scripted)
    assert code == 1 and "Traceback" not in err
    records = _records(out)
    assert [r["line"] for r in records] == [1, 2, 3]
    assert records[0]["error"] is None and records[2]["error"] is None
    assert "nested too deeply" in records[1]["error"]


# -- item 14: threads are bounded by the machine ------------------------------------------------
def test_item14_threads_above_the_cores_are_refused(tmp_path, monkeypatch):
    cores = os.cpu_count()
    assert load_settings({"threads": cores}).threads == cores
    with pytest.raises(ConfigError, match=f"threads must be at most {cores}.*CPU"):
        load_settings({"threads": cores + 1})
    monkeypatch.setenv("LOCAL_AGENT_THREADS", "100000")
    with pytest.raises(ConfigError, match=f"threads must be at most {cores}"):
        load_settings()
    monkeypatch.delenv("LOCAL_AGENT_THREADS")
    config = tmp_path / "config.toml"
    config.write_text("threads = 40000\n")
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(config))
    with pytest.raises(ConfigError, match="threads"):
        load_settings()


def test_item14_threads_flag_is_refused_before_the_model_loads(scripted, capsys, monkeypatch):
    code, _, err = run_main(["ask", "--no-memory", "--threads", "5000", "hi"], capsys, monkeypatch, backend=scripted)
    assert code == 1 and "threads" in error_line(err)
    assert scripted.prompts == []


# -- item 16: per-line settings are checked like flags -------------------------------------------
BAD_LINES = [
    (b'{"input": "x", "max_tokens": 0}', "max_tokens"),
    (b'{"input": "x", "max_tokens": -5}', "max_tokens"),
    (b'{"input": "x", "max_tokens": 4096}', "max_tokens must be smaller than ctx_size"),
    (b'{"input": "x", "max_tokens": 8.5}', "max_tokens"),
    (b'{"input": "x", "temperature": NaN}', "temperature"),
    (b'{"input": "x", "temperature": Infinity}', "temperature"),
    (b'{"input": "x", "temperature": -1}', "temperature"),
    (b'{"input": "x", "temperature": true}', "temperature"),
    (b'{"input": "x", "seed": -1}', "seed"),
    (b'{"input": "x", "temprature": 0.5}', "unknown field 'temprature'"),
]


@pytest.mark.parametrize(("line", "message"), BAD_LINES, ids=[m for _, m in BAD_LINES])
def test_item16_bad_line_settings_are_error_records(line, message):
    (item,) = parse_lines([line], plain_text=False)
    assert item.error is not None and message in item.error


def test_item16_bad_line_settings_never_reach_the_model(scripted, tmp_path, capsys, monkeypatch):
    source = tmp_path / "in.jsonl"
    good = b'{"input": "fine", "max_tokens": 8, "temperature": 0.5, "seed": 3}'
    source.write_bytes(b"\n".join([good, *(line for line, _ in BAD_LINES)]) + b"\n")
    out = tmp_path / "out.jsonl"
    code, _, err = _batch([str(source), "-o", str(out)], capsys, monkeypatch, backend=scripted)
    assert code == 1 and "Traceback" not in err
    records = _records(out)
    assert records[0]["error"] is None
    assert all(r["error"] for r in records[1:]) and len(records) == 1 + len(BAD_LINES)
    assert len(scripted.prompts) == 1


def test_item16_line_overrides_follow_the_run_settings(scripted):
    from local_agent.config import Settings

    (item,) = parse_lines([b'{"input": "x", "max_tokens": 3000}'], plain_text=False,
                          settings=Settings(ctx_size=4096))
    assert item.error is None and item.overrides == {"max_tokens": 3000}
    (item,) = parse_lines([b'{"input": "x", "temperature": 1}'], plain_text=False)
    assert item.overrides == {"temperature": 1.0} and isinstance(item.overrides["temperature"], float)


# -- item 17: plain-text file names, empty data dir, coerced config values ---------------------
def test_item17_plain_text_file_with_a_space_in_its_name(scripted, tmp_path, capsys, monkeypatch):
    source = tmp_path / "my notes.txt"
    source.write_text("first question\nsecond question\n", encoding="utf-8")
    code, out, err = _batch([str(source)], capsys, monkeypatch, backend=scripted)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["session"], r["error"]) for r in records] == [("my-notes", None)] * 2


@pytest.mark.parametrize(("stem", "name"), [
    ("my notes", "my-notes"), ("Café du jour", "Cafe-du-jour"), ("--x--", "x"), ("日本", "batch"),
    ("a" * 100, "a" * 64), ("ok_name.v2", "ok_name.v2"),
])
def test_item17_session_name_from_a_file_name(stem, name):
    from local_agent.conversations.batch import session_name_for

    assert session_name_for(Path(f"/tmp/{stem}.txt")) == name


def test_item17_empty_data_dir_is_an_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", "")
    with pytest.raises(ConfigError, match="LOCAL_AGENT_DATA_DIR: data_dir is empty"):
        load_settings()
    code, _, err = run_main(["memory", "list"], capsys, monkeypatch)
    assert code == 1 and "LOCAL_AGENT_DATA_DIR: data_dir is empty" in error_line(err)
    assert list(tmp_path.iterdir()) == []  # nothing written into the current folder
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(tmp_path / "d"))
    with pytest.raises(ConfigError, match="--data-dir: data_dir is empty"):
        load_settings({"data_dir": ""})
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", "")  # the same rule for the config file's path
    with pytest.raises(ConfigError, match="LOCAL_AGENT_CONFIG is empty"):
        load_settings()


@pytest.mark.parametrize(("line", "message"), [
    ("ctx_size = 2048.9", "ctx_size must be int"),
    ("threads = true", "threads must be int"),
    ("temperature = inf", "temperature must be a finite number"),
    ("temperature = nan", "temperature must be a finite number"),
    ("top_p = true", "top_p must be float"),
    ("model = 5", "model must be str"),
    ("verbose = 1", "verbose must be bool"),
    ("data_dir = ''", "data_dir is empty"),
])
def test_item17_config_file_values_are_not_coerced(tmp_path, monkeypatch, line, message):
    config = tmp_path / "config.toml"
    config.write_text(line + "\n")
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(config))
    with pytest.raises(ConfigError, match=message):
        load_settings()


@pytest.mark.parametrize(("name", "value"), [
    ("TEMPERATURE", "inf"), ("TEMPERATURE", "nan"), ("TOP_P", "NaN"), ("CTX_SIZE", "2048.9"),
    ("THREADS", "true"),
])
def test_item17_env_values_are_not_coerced(monkeypatch, name, value):
    monkeypatch.setenv("LOCAL_AGENT_" + name, value)
    with pytest.raises(ConfigError, match="LOCAL_AGENT_" + name):
        load_settings()


@pytest.mark.parametrize("flags", [
    {"temperature": float("inf")}, {"top_p": float("nan")}, {"threads": True}, {"ctx_size": 2048.9},
])
def test_item17_flag_values_are_not_coerced(flags):
    with pytest.raises(ConfigError):
        load_settings(flags)


def test_item17_integral_values_are_still_accepted(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('ctx_size = 4096.0\ntemperature = 1\nthreads = "1"\nverbose = "yes"\n')
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(config))
    monkeypatch.setenv("LOCAL_AGENT_MAX_TOKENS", "64")
    settings = load_settings()
    assert (settings.ctx_size, settings.temperature, settings.threads, settings.verbose) == (4096, 1.0, 1, True)
    assert isinstance(settings.ctx_size, int) and isinstance(settings.temperature, float)
    assert settings.max_tokens == 64


def test_item03_devices_are_not_the_same_file(scripted, tmp_path, capsys, monkeypatch):
    import sys

    with open(os.devnull, encoding="utf-8") as handle:  # `batch - -o /dev/null < /dev/null`
        monkeypatch.setattr(sys, "stdin", handle)
        code, _, err = run_main(["batch", "-", "-o", os.devnull, "--quiet", "--no-memory"], capsys, monkeypatch,
                                backend=scripted)
    assert code == 0, err
    assert (os.stat(os.devnull).st_mode & 0o777) == 0o666  # never chmod-ed
