"""The agent's background work: jobs in order, errors to whoever waits, and no thread left once
the work is done (llama.cpp's OpenMP keeps a thread team per thread that ran the model, and a
second team beside the main thread's slowed decode to a third)."""

from __future__ import annotations

import threading
import time

import pytest

from local_agent.process.background import Background


def _alive(name: str) -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == name]


def test_jobs_run_in_order_and_the_thread_ends_when_none_is_left() -> None:
    work = Background("test-work")
    done: list[int] = []

    def job(n: int) -> int:
        time.sleep(0.01)
        done.append(n)
        return n

    futures = [work.submit(job, n) for n in range(5)]
    assert [future.result(timeout=5) for future in futures] == [0, 1, 2, 3, 4]
    assert done == [0, 1, 2, 3, 4]
    work.settle()
    assert not _alive("test-work")
    assert work.submit(lambda: "again").result(timeout=5) == "again"  # a new thread when needed
    work.settle()
    assert not _alive("test-work")


def test_an_error_goes_to_the_future_and_later_jobs_still_run() -> None:
    work = Background("test-errors")
    failing = work.submit(lambda: 1 / 0)
    after = work.submit(lambda: "ran")
    with pytest.raises(ZeroDivisionError):
        failing.result(timeout=5)
    assert after.result(timeout=5) == "ran"
    work.shutdown()
    assert not _alive("test-errors")
    with pytest.raises(RuntimeError):
        work.submit(lambda: None)


def _threads() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))


def test_handing_work_over_lets_the_callers_openmp_threads_go(default_gguf) -> None:
    """A thread that ran the model keeps OpenMP threads; two such teams on the cores of one
    throttle each other (decode at a third of its speed). Handing work to the background lets
    the caller's go first: here, the one extra thread of a 2-thread team."""
    import llama_cpp

    llm = llama_cpp.Llama(str(default_gguf), n_ctx=256, n_threads=2, n_threads_batch=2, verbose=False)
    try:
        llm.eval(llm.tokenize(b"The lighthouse keeper climbed the stairs"))  # this thread's team
        with_team = _threads()
        work = Background("test-handover")
        assert work.submit(lambda: "done").result(timeout=5) == "done"
        work.settle()
        deadline = time.monotonic() + 5
        while _threads() >= with_team and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _threads() == with_team - 1
        llm.eval(llm.tokenize(b" and wound the clock"))  # a new team when it computes again
    finally:
        llm.close()
