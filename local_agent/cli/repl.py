"""The interactive chat loop: line editing, slash commands, streaming, Ctrl-C handling."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from .. import __version__
from ..app import Runtime
from ..config import Settings
from ..errors import LocalAgentError
from ..limits import check_message
from ..models.advice import model_advice
from ..turn.result import MemoryWork, TurnResult
from .display import printable
from .history import ChatHistory
from .stdin_text import check_message_size, read_piped_line

if TYPE_CHECKING:
    from ..memory.service import MemoryService
    from ..tools.loop import ToolCall

HELP = """Commands:
  /memories            what I remember about you (facts)
  /remember TEXT       remember TEXT as a fact about you
  /forget ID           forget a memory (id or unique prefix)
  /summary             the rolling summary of this session
  /context             the exact prompt last sent, with tokens per section
  /trace               the last turn's tool calls in full
  /approve             toggle asking before each tool call
  /incognito           toggle incognito: memory is read, nothing is written
  /clear               start the dialogue afresh (long-term memory stays)
  /help                this list
  /exit                leave (or Ctrl-D)
Ctrl-C stops the current answer. End a line with \\ to continue it; wrap pasted text in \"\"\"."""

STATUS_WAIT_S = 2.0


def saved_summary(work: MemoryWork) -> str:
    """The status line after a turn: what its memory work remembered."""
    if work.error:
        return f"memory not updated: {work.error}"
    if not work.saved:
        return "nothing new to remember"
    parts = [f"{o.action} [{o.record.id[:8]}] {o.record.text}"
             + (f" (replaces: {o.previous.text})" if o.previous is not None else "") for o in work.saved]
    return "remembered: " + "; ".join(parts)


class ChatRepl:
    def __init__(self, runtime: Runtime, settings: Settings, reader: Callable[[str], str] | None = None) -> None:
        self.runtime = runtime
        self.agent = runtime.agent
        self.settings = settings
        self.read = reader or (input if sys.stdin.isatty() else read_piped_line)
        self.pending_status: TurnResult | None = None  # a turn whose memory work is unreported
        self.history = ChatHistory(None if settings.incognito else settings.data_dir / "chat_history")

    # -- loop ---------------------------------------------------------------------
    def run(self) -> None:
        if sys.stdin.isatty():
            self.history.start()
        self._banner()
        self.runtime.warm_up()  # load the embedding model while the user types the first message
        self.agent.prepare_next_turn()  # and read the system prompt (and a resumed dialogue) ahead
        while True:
            try:
                text = self._read_message()
            except EOFError:
                click.echo()
                break
            except KeyboardInterrupt:
                click.echo()
                continue
            if not text.strip():
                continue
            if text.lstrip().startswith("/"):
                if self._command(text.strip()) == "exit":
                    break
                continue
            self._turn(text)

    def _banner(self) -> None:
        choice = self.runtime.choice
        memory = "off" if not self.agent.has_memory else ("incognito" if self.agent.incognito else "on")
        tool_turn = self.agent.tool_turn
        tools = "" if tool_turn is None else f" · tools {', '.join(tool_turn.tools) or 'none'}"
        click.echo(
            f"local-agent {__version__} · {self.runtime.backend.model_name} · {choice.backend} on {choice.device}"
            f" · session {self.agent.session.name} · memory {memory}{tools}"
            f"{' (approve each call)' if self.agent.approving else ''}",
            err=True,
        )
        if self.settings.verbose:
            click.echo(f"· {choice.reason}", err=True)
        advice = model_advice(self.settings.model, self.settings.models_dir)
        if advice is not None:
            click.echo(f"· {advice.text}", err=True)
        click.echo("Type /help for commands, Ctrl-D to exit.", err=True)

    def _read_message(self) -> str:
        mark = self.history.mark()
        try:
            return self._read_lines()
        finally:
            if self.agent.incognito:  # what is said in incognito stays off the history file
                self.history.drop_since(mark)

    def _read_lines(self) -> str:
        first = self.read(">>> ")
        if first.strip().startswith('"""'):
            return self._read_block(first.strip()[3:])
        lines, size = [first], len(first)
        while lines[-1].endswith("\\"):
            check_message_size(size)
            lines[-1] = lines[-1][:-1]
            lines.append(self.read("... "))
            size += len(lines[-1]) + 1
        return "\n".join(lines)

    def _read_block(self, rest: str) -> str:
        lines, size = [], 0
        line = rest
        while not line.rstrip().endswith('"""'):
            lines.append(line)
            size += len(line) + 1
            check_message_size(size)
            line = self.read("... ")
        lines.append(line.rstrip()[:-3])
        return "\n".join(lines).strip("\n")

    # -- a turn -----------------------------------------------------------------------
    def _turn(self, text: str) -> None:
        self._report_pending()
        try:
            check_message(text)  # limits.py: an overlong message is refused, and the chat goes on
            result = self.agent.respond(text, on_token=self._print_chunk, ask=self._ask_user, on_call=self._show_call)
        except LocalAgentError as exc:
            click.echo(f"\nerror: {exc}", err=True)
            return
        click.echo()
        if result.interrupted:
            click.echo("[answer stopped]", err=True)
        for notice in result.notices:
            click.echo(f"· {notice}", err=True)
        if self.settings.verbose:
            t = result.timings
            click.echo(f"· first token {t.first_token_s or 0:.2f}s, answer {t.answer_s or 0:.2f}s, "
                       f"{result.tokens.completion} tokens", err=True)
        self.agent.prepare_next_turn()
        if result.memory is not None:
            self.pending_status = result
            try:
                result.memory_work(timeout=STATUS_WAIT_S)
            except TimeoutError:
                click.echo("· remembering in the background ...", err=True)
            else:
                self._report_pending()

    def _report_pending(self) -> None:
        if self.pending_status is None:
            return
        click.echo(f"· {saved_summary(self.pending_status.memory_work())}", err=True)
        self.pending_status = None

    @staticmethod
    def _print_chunk(chunk: str) -> None:
        sys.stdout.write(chunk)
        sys.stdout.flush()

    @staticmethod
    def _show_call(call: ToolCall) -> None:
        from .tool_lines import call_line

        if call.name != "ask_user":  # the question and its reply are on the screen already
            click.echo(call_line(call), err=True)

    def _ask_user(self, question: str) -> str | None:
        """The model asks back: the user's reply goes on with the turn (none: the question
        is the answer)."""
        click.echo(printable(question))
        try:
            return self._read_message()
        except (EOFError, KeyboardInterrupt):
            click.echo()
            return None

    # -- slash commands ------------------------------------------------------------------
    def _command(self, line: str) -> str | None:
        name, _, arg = line.partition(" ")
        handlers = {
            "/help": lambda: click.echo(HELP),
            "/exit": lambda: "exit",
            "/quit": lambda: "exit",
            "/clear": self._clear,
            "/memories": self._memories,
            "/remember": lambda: self._remember(arg.strip()),
            "/forget": lambda: self._forget(arg.strip()),
            "/summary": self._summary,
            "/context": self._context,
            "/trace": self._trace,
            "/approve": self._approve,
            "/incognito": self._incognito,
        }
        handler = handlers.get(name)
        if handler is None:
            click.echo(f"unknown command {name}; /help lists them", err=True)
            return None
        try:
            return handler()
        except LocalAgentError as exc:
            click.echo(f"error: {exc}", err=True)
            return None

    def _memory(self) -> MemoryService | None:
        """The runtime's memory service; None (said) when memory is off."""
        if self.runtime.memory_service is None:
            click.echo("memory is off in this chat (--no-memory)", err=True)
        return self.runtime.memory_service

    def _clear(self) -> None:
        self.agent.clear()
        click.echo("· dialogue cleared; long-term memory kept", err=True)

    def _memories(self) -> None:
        memory = self._memory()
        if memory is None:
            return
        facts = memory.records("fact")
        if not facts:
            click.echo("I don't remember anything about you yet.")
        for record in facts:
            click.echo(f"{record.id}  {record.text}")

    def _remember(self, text: str) -> None:
        memory = self._memory()
        if memory is None:
            return
        if not text:
            click.echo("usage: /remember TEXT", err=True)
            return
        if self.agent.incognito:
            click.echo("incognito: nothing is written (toggle with /incognito)", err=True)
            return
        record = memory.remember(text, via="/remember", session=self.agent.session.name).record
        click.echo(f"· remembered [{record.id}] {record.text}", err=True)

    def _forget(self, ident: str) -> None:
        memory = self._memory()
        if memory is None:
            return
        if not ident:
            click.echo("usage: /forget ID", err=True)
            return
        record = memory.forget(ident).record
        click.echo(f"· forgot [{record.id}] {record.text}", err=True)

    def _summary(self) -> None:
        summary = self.agent.session.summary
        click.echo(summary if summary else "(no summary yet: the dialogue still fits verbatim)")

    def _context(self) -> None:
        last = self.agent.last
        if last is None or last.prompt is None:
            click.echo("(nothing sent yet)")
            return
        click.echo(last.prompt_text)
        sections = ", ".join(f"{name} {tokens}" for name, tokens in last.prompt.section_tokens.items())
        total = self.runtime.backend.count_tokens(last.prompt_text)
        click.echo(f"--- tokens: {sections}; whole prompt {total} of {self.runtime.backend.context_size}", err=True)

    def _trace(self) -> None:
        from .tool_lines import trace_lines

        last = self.agent.last
        if last is None:
            click.echo("(nothing asked yet)")
            return
        for line in trace_lines(last):
            click.echo(line)

    def _approve(self) -> None:
        if self.agent.tool_turn is None:
            click.echo("tools are off in this chat (start it with --tools, --db or --notes)", err=True)
            return
        self.agent.set_approving(not self.agent.approving)
        click.echo(f"· {'each tool call is put to you first' if self.agent.approving else 'tools run without asking'}",
                   err=True)

    def _incognito(self) -> None:
        self.agent.set_incognito(not self.agent.incognito)
        click.echo(f"· incognito {'on: nothing will be written' if self.agent.incognito else 'off'}", err=True)
