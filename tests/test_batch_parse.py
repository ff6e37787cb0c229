import json

from local_agent.conversations.batch import BatchRunner, done_lines, parse_lines


def _items(*lines: bytes, plain=False):
    return list(parse_lines(list(lines), plain_text=plain))


def test_valid_and_bad_lines():
    items = _items(
        b'{"session": "a", "input": "hello", "max_tokens": 8}\n',
        b"{broken\n",
        b'{"session": "a"}\n',
        b'{"session": 3, "input": "x"}\n',
        b'{"input": "x", "temperature": "hot"}\n',
        b"\xff\xfe\n",
        b"   \n",
        b"[1, 2]\n",
    )
    assert items[0].error is None and items[0].overrides == {"max_tokens": 8}
    errors = [i.error for i in items[1:]]
    assert "invalid JSON" in errors[0]
    assert "missing field 'input'" in errors[1]
    assert "must be strings" in errors[2]
    assert "'temperature' must be a number" in errors[3]
    assert "not valid UTF-8" in errors[4]
    assert "JSON object" in errors[5]
    assert [i.line for i in items] == [1, 2, 3, 4, 5, 6, 8]


def test_oversized_line_is_an_error():
    item = _items(b'{"input": "' + b"a" * 1_000_001 + b'"}')[0]
    assert "over 1000000 bytes" in item.error


def test_plain_text_one_session():
    items = _items(b"first\n", b"second\n", plain=True)
    assert [(i.session, i.input) for i in items] == [("batch", "first"), ("batch", "second")]


def test_runner_writes_error_records_and_counts(tmp_path):
    out = tmp_path / "out.jsonl"
    items = _items(b'{"input": "ok"}', b"{bad")
    with out.open("w") as sink:
        runner = BatchRunner(lambda item: (None, {"answer": item.input.upper()}), sink)
        runner.run(items)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[0]["answer"] == "OK" and records[0]["error"] is None
    assert records[1]["error"].startswith("invalid JSON")
    assert runner.failed == 1
    assert done_lines(out) == {1}


def test_fail_fast_stops(tmp_path):
    out = tmp_path / "out.jsonl"
    items = _items(b"{bad", b'{"input": "ok"}')
    with out.open("w") as sink:
        BatchRunner(lambda item: (None, {"answer": "x"}), sink, fail_fast=True).run(items)
    assert len(out.read_text().splitlines()) == 1
