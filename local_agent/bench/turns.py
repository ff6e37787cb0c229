"""Time to first token of chat turns: the bare backend, the agent without and with memory."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..turn.result import measured
from ..types import GenerationSettings, Message
from .generation import answer_settings
from .measure import timed_stream
from .plan import BenchPlan
from .stats import median_of, scaled, spread

if TYPE_CHECKING:
    from ..app import Runtime
    from ..backends.base import Backend
    from ..turn.agent import MemoryParts
    from ..turn.result import TurnResult


TURN_WARMUP = "Hello! What did we talk about last week?"  # warms recall and date reading too
TURN_MESSAGES = (
    "What should I cook for dinner tonight?",
    "Any tips for my trip to Kyoto?",
    "Can you suggest something fun to do this weekend?",
    "How do I keep a sourdough starter alive?",
    "What is a good way to practice the cello?",
)


def measure_turns(runtime: Runtime, settings: Settings, plan: BenchPlan) -> dict[str, Any]:
    """Time to first token of the same messages three ways, each in a block with its own
    warm-up (llama.cpp keeps the previous prompt's prefix cached, as in a chat): the bare
    backend on the message alone, the agent without memory, the agent with memory. Every
    agent turn starts a fresh session, so no history grows between runs."""
    generation = answer_settings(settings, plan.tokens)
    messages = list(TURN_MESSAGES[: max(plan.reps, 2)])
    bare = _bare_turns(runtime.backend, messages, generation)
    without = _agent_turns(runtime, None, messages, generation)
    with_memory = _agent_turns(runtime, runtime.memory, messages, generation)
    # The pipeline's own cost before the model sees the prompt: recall (query embedding
    # included) and composing. The longer prompt that recalled memories make is the model's
    # prompt processing, reported apart as the TTFT difference.
    pipeline_ms = median_of(with_memory, "before_model_ms")
    ttft_memory, ttft_bare = _measured(with_memory, "ttft_ms"), _measured(bare, "ttft_ms")
    return {"messages": len(messages), "tokens": plan.tokens, "bare": bare, "agent_no_memory": without,
            "agent_memory": with_memory, "memory_overhead_ms": pipeline_ms, "ttft_delta_ms": ttft_memory - ttft_bare,
            "ttft_delta_ratio": ttft_memory / ttft_bare,
            "dialogue": {"no_read_ahead": _dialogue(runtime, generation, read_ahead=False),
                         "read_ahead": _dialogue(runtime, generation, read_ahead=True)}}


def _measured(entry: dict[str, Any], key: str) -> float:
    value = median_of(entry, key)
    if value is None:
        raise ValueError(f"{key} was not measured")
    return value


def _bare_turns(backend: Backend, messages: list[str], generation: GenerationSettings) -> dict[str, Any]:
    def run(message: str) -> dict[str, float]:
        stream = backend.stream([Message("user", message)], generation)
        timing = timed_stream(stream, lambda: stream.result().completion_tokens)
        return {**timing, "prompt_tokens": stream.result().prompt_tokens}

    run(TURN_WARMUP)
    runs = [run(message) for message in messages]
    return {"ttft_ms": scaled([r["ttft_s"] for r in runs], 1000),
            "answer_ms": scaled([r["total_s"] for r in runs], 1000),
            "prompt_tokens": spread([r["prompt_tokens"] for r in runs])}


def _agent_turns(runtime: Runtime, memory: MemoryParts | None, messages: list[str],
                 generation: GenerationSettings) -> dict[str, Any]:
    from ..turn.agent import Agent

    sessions = runtime.agent.sessions

    def turn(message: str) -> tuple[TurnResult, float]:
        agent = Agent(runtime.backend, sessions, sessions.new(), runtime.agent.settings, memory=memory,
                      directive=runtime.agent.directive, examples=runtime.agent.examples)
        result = agent.respond(message, generation=generation)
        start = time.perf_counter()
        result.memory_work()  # storing the turn and distilling it, after the answer
        after = time.perf_counter() - start
        agent.close()
        return result, after

    turn(TURN_WARMUP)
    runs = [turn(message) for message in messages]
    timings = [result.timings for result, _ in runs]
    report = {
        "ttft_ms": scaled([measured(t.first_token_s) for t in timings], 1000),
        "answer_ms": scaled([measured(t.answer_s) for t in timings], 1000),
        "compose_ms": scaled([measured(t.compose_s) for t in timings], 1000),
        "before_model_ms": scaled([(t.recall_s or 0.0) + measured(t.compose_s) for t in timings], 1000),
        "prompt_tokens": spread([float(result.tokens.prompt) for result, _ in runs]),
        "after_answer_ms": scaled([after for _, after in runs], 1000),
    }
    if memory is not None:
        report["recall_ms"] = scaled([measured(t.recall_s) for t in timings], 1000)
        report["recalled"] = spread([float(len(result.recalled)) for result, _ in runs])
    return report


def _dialogue(runtime: Runtime, generation: GenerationSettings, *, read_ahead: bool) -> dict[str, Any]:
    """Time to first token of the turns after the first in one ongoing chat with memory (the
    memory work after each answer included, as in the REPL), with or without the dialogue read
    ahead while the user would be typing (Agent.prepare_next_turn). Also when the model gave its
    first text: an answer that opens like an earlier one is held until it departs (the echo
    guard), which the first shown token includes and reading ahead does not change. And the
    decode speed of those turns."""
    from ..turn.agent import Agent

    sessions = runtime.agent.sessions
    agent = Agent(runtime.backend, sessions, sessions.new(), runtime.agent.settings, memory=runtime.memory,
                  directive=runtime.agent.directive, examples=runtime.agent.examples)
    ttft, model_ttft, prompt_tokens, decode = [], [], [], []
    try:
        for index, message in enumerate((TURN_WARMUP, *TURN_MESSAGES)):
            result = agent.respond(message, generation=generation)
            result.memory_work()
            if read_ahead:
                agent.prepare_next_turn()
                agent.wait()
            if index:
                ttft.append(measured(result.timings.first_token_s))
                model_ttft.append(measured(result.timings.model_first_token_s))
                prompt_tokens.append(float(result.tokens.prompt))
                decode.append(_decode_speed(result))
    finally:
        agent.close()
    return {"ttft_ms": scaled(ttft, 1000), "model_ttft_ms": scaled(model_ttft, 1000),
            "prompt_tokens": spread(prompt_tokens), "decode_tok_s": spread(decode)}


def _decode_speed(result: TurnResult) -> float:
    """Tokens per second after the first, in a chat turn (the memory work and reading ahead
    ran before it, as in the REPL: this is where a lingering worker thread slowed decode)."""
    seconds = measured(result.timings.answer_s) - measured(result.timings.model_first_token_s)
    return max(0, result.tokens.completion - 1) / seconds if seconds > 0 else 0.0
