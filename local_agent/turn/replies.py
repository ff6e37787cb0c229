"""How a turn's reply is made. "The program decides, the model phrases": the message's reading
(reading/: its intents, read once) says what kind of message it is, and `plan_reply` decides
who says what, the first entry of `PRECEDENCE` that applies winning:

- a recap question ("what did we talk about today?", turn/recap.py): the program lists that
  period's turns and digests, shown at once;
- a correction (acknowledge.py): "Got it, Alexa." / "Got it: you live in Braga now.", at once;
- an introduction: "Nice to meet you, Priya!" (in the user's language), at once (then the
  model's answer, streamed, when the message also asks something);
- a question about the assistant itself (about_me.py: its name, whether it is a person, who
  made it): "I'm an AI assistant, not a person ...", at once;
- a goodbye at the end of a message (phrases.py): "Good night, sleep well!" / "Bye for now, talk
  soon!" in the user's language, after "You're welcome!" when it thanks, at once;
- a greeting or thanks alone (phrases.py): the model's reply, held until checked as below, else
  "Hello! How can I help you today?" / "You're welcome!" in the user's language;
- a word problem, a message that states its own quantities and asks about them ("we scored 18
  and 27, how many in all?"; reading/problems): the solver's answer with its reading, or the
  reading said back and asked about, at once; never a question about the past;
- a question about the conversation's past (memory_answers.py): "what's my name?" is the
  program's when an introduction in the dialogue or a memory shown gives it ("Your name is
  Dana."); else the model's answer, held until checked: a name or number no source holds gets
  one retry, strict and without the dialogue; an answer that apologizes, refuses or says nothing
  of the evidence (evidence.py) is replaced by the evidence said back ("You told me your partner
  Sam made you a cake."); with no evidence, "I don't remember that." with the closest memory;
- a plain statement about oneself, or one that shares a feeling ("rough day at work",
  feelings.py): the model's reply, held until checked (`statement_problem`: the user's
  language, no apology, no "the user", not taking the user's words or name as its own, no
  unsupported name or number, short, no cheering at something hard or condoling at good news),
  else "That sounds hard. I'm here if you want to talk about it." / "That's wonderful to hear!"
  for a feeling, the statement said back ("Got it: you prefer tea over coffee."), or thanks for
  telling in the user's language; a greeting or thanks is also checked to greet or thank back;
- anything else (questions, requests, greetings, thanks): the model's answer, streamed.

The program's acknowledgements of corrections and its said-back statements are in English: in
another language, a correction is a statement and is thanked for.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from ..backends.base import Backend
from ..grounding.support import unsupported
from ..memory.sessions import Turn
from ..reading import Reading
from ..reading.introductions import introduced_name
from ..reading.language import same_language
from ..reading.problems import reply as problem_reply
from ..types import GenerationSettings, Message
from .about_me import about_me_reply
from .acknowledge import correction_reply, introduction_reply, said_back
from .answering import Answer, stream_answer
from .choose import Choice, composed, winning
from .content import unheld_claims
from .evidence import Candidate, draws_on, from_dialogue, from_memory, relevant, said_back_evidence
from .feelings import REPLIES as FEELING_REPLIES
from .feelings import misses_feeling
from .memory_answers import DONT_REMEMBER, asks_about_past
from .phrases import answers_courtesy, farewell_reply, phrase
from .reply_checks import apologizes_or_refuses, claims_name, speaks_of_the_user, takes_statement, too_long
from .result import TokenCounts
from .told import answering, draws_on_each_part, not_told_reply, said_by_user, untold_parts

ReplyKind = Literal["introduction", "correction", "about-me", "farewell", "courtesy", "problem", "past", "statement",
                    "open"]
# Added to the system message when a memory answer is asked again: the first named or counted
# something no memory holds.
STRICT = "Answer only with what the notes from memory say. If they do not say it, answer: I don't remember."
SAID_BACK_WORDS = 25  # a statement said back longer than this gets the plain thanks instead
OnToken = Callable[[str], None] | None


@dataclass(frozen=True)
class ReplyPlan:
    """Who says what: `text` is the program's reply, or its opening when the model answers
    after it (`model_after`)."""

    kind: ReplyKind
    text: str = ""
    model_after: bool = False
    outcome: str = ""  # TurnResult.outcome, when the program's reply answers a question


PlanStep = Callable[[Reading, Sequence[str]], "ReplyPlan | None"]


def _correction(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    said = correction_reply(reading) if reading.english and not reading.asks else None
    return ReplyPlan("correction", said) if said else None


def _introduction(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    introduction, about = introduction_reply(reading), about_me_reply(reading.about)
    if not introduction:  # "Hi, I'm Sam. What's your name?": both the program's
        return None
    return ReplyPlan("introduction", f"{introduction} {about}" if about else introduction,
                     model_after=reading.asks and not about)


def _about_me(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    about = about_me_reply(reading.about)
    return ReplyPlan("about-me", about) if about else None


def _farewell(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    goodbye = reading.goodbye  # a message that also asks gets its answer, never only the goodbye
    return ReplyPlan("farewell", farewell_reply(goodbye, reading.language)) if goodbye and not reading.asks else None


def _courtesy(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    return ReplyPlan("courtesy", phrase(reading.courtesy, reading.language)) if reading.courtesy else None


def _problem(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    said = problem_reply(reading.text) if reading.english else None
    return ReplyPlan("problem", said.text, outcome=said.outcome) if said else None


def _past(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    # "whats my name lol" asks too, in any form
    return ReplyPlan("past") if reading.own_name or asks_about_past(reading.past, memories) else None


def _statement(reading: Reading, memories: Sequence[str]) -> ReplyPlan | None:
    if reading.asks or not (not reading.english or reading.feeling or reading.intent("statement")):
        return None
    return ReplyPlan("statement", statement_reply(reading))


# Which reply a message gets when it does several things: the first step of this table that
# makes a plan (recap questions are the agent's, before recall; anything else is "open").
PRECEDENCE: tuple[tuple[ReplyKind, PlanStep], ...] = (
    ("correction", _correction),  # English and not asking: "No, my name is Alexa." before the name
    ("introduction", _introduction),  # with the answer about the assistant when both
    ("about-me", _about_me),
    ("farewell", _farewell),  # a goodbye at the end wins over the thanks before it, not over a question
    ("courtesy", _courtesy),
    ("problem", _problem),  # states its own quantities and asks about them: never the past
    ("past", _past),
    ("statement", _statement),  # not asking: a feeling, a first-person statement, another language
)


def plan_reply(reading: Reading, memories: Sequence[str]) -> ReplyPlan:
    """The kind of reply the message read as `reading` gets (`PRECEDENCE`)."""
    for _, step in PRECEDENCE:
        plan = step(reading, memories)
        if plan is not None:
            return plan
    return ReplyPlan("open")


def statement_reply(reading: Reading) -> str:
    """What the program says to a plain statement: to a feeling shared (in English)
    "That sounds hard. ..." or "That's wonderful to hear!"; else the statement said back, when
    short (in English), else thanks for telling, in the message's language."""
    shared = reading.feeling if reading.english else None
    if shared:
        return FEELING_REPLIES[shared]
    said = said_back(reading.clauses) if any(c.first_person_statement for c in reading.clauses) else ""
    if said and len(said.split()) <= SAID_BACK_WORDS and reading.english:
        return f"Got it: {said}."
    return phrase("told", reading.language)


def statement_problem(reply: str, reading: Reading, sources: Sequence[str], user_names: Sequence[str]) -> str | None:
    """Why the model's reply to a plain statement may not be shown, or None."""
    missing = unsupported(reply, sources)
    problems = (
        (not reply.strip(), "empty"),
        (not same_language(reply, reading.language), "another language"),
        (apologizes_or_refuses(reply, reading.text), "an apology or refusal"),
        (speaks_of_the_user(reply), 'speaks of "the user"'),
        (bool(claims_name(reply, user_names)), "takes the user's name"),
        (takes_statement(reply, reading.clauses) is not None, "takes the user's statement as its own"),
        (bool(missing), f"unsupported {missing.describe()}"),
        (too_long(reply, reading.text), "too long"),
        (misses_feeling(reply, reading.feeling), "cheers at something hard, or condoles at good news"),
    )
    return next((reason for failed, reason in problems if failed), None)


class _Asked(NamedTuple):
    """A question about the user's past, with what it may be answered from: the evidence (the
    records that answer first), every candidate, and the user's own names."""

    question: str
    evidence: list[Candidate]
    candidates: list[Candidate]
    names: list[str]
    said_back: str = ""  # the records that answer, said back by the program


class Reply(NamedTuple):
    """The answer shown, and how it was made (TurnResult.reply_route)."""

    answer: Answer
    route: str


class Replier:
    """Makes the reply a plan asks for, on one backend with one turn's prompt, timings and
    callback; `sources` are the prompt's texts an answer may draw on."""

    def __init__(self, backend: Backend, messages: Sequence[Message], settings: GenerationSettings,
                 on_token: OnToken, timings: dict[str, float], start: float, *,
                 earlier: Sequence[str] = (), sources: Sequence[str] = (), memories: Sequence[str] = ()) -> None:
        self.backend, self.messages, self.settings = backend, list(messages), settings
        self.on_token, self.timings, self.start = on_token, timings, start
        self.earlier, self.sources, self.memories = list(earlier), list(sources), list(memories)

    def reply(self, plan: ReplyPlan, reading: Reading, user_names: Sequence[str] = ()) -> Reply:
        if plan.kind in ("about-me", "farewell", "problem"):
            return Reply(self.said(plan.text), f"template:{plan.kind}")
        if plan.kind in ("introduction", "correction"):
            said = self.said(plan.text)
            if not plan.model_after:
                return Reply(said, f"template:{plan.kind}")
            rest = stream_answer(self.backend, self.messages, self.settings, self.on_token_after(), self.timings,
                                 self.start, earlier=self.earlier)
            return Reply(rest._replace(text=f"{plan.text} {rest.text}", first_token_at=said.first_token_at),
                         f"template:{plan.kind}+model")
        if plan.kind == "past":
            return self.grounded(reading)
        if plan.kind in ("statement", "courtesy"):
            return self.guarded(reading, user_names, plan)
        return Reply(stream_answer(self.backend, self.messages, self.settings, self.on_token, self.timings,
                                   self.start, earlier=self.earlier), "model")

    def said(self, text: str, tokens: TokenCounts | None = None, interrupted: bool = False) -> Answer:
        """`text` shown at once, as the whole answer."""
        shown = time.perf_counter()
        self.timings["first_token_s"] = shown - self.start
        if self.on_token is not None and text:
            self.on_token(text)
        self.timings["answer_s"] = time.perf_counter() - self.start
        return Answer(text, interrupted, tokens or TokenCounts(), shown)

    def on_token_after(self) -> OnToken:
        """The callback for the model's answer after the program's opening: a space first."""
        if self.on_token is None:
            return None
        first, show = [True], self.on_token

        def after(chunk: str) -> None:
            if first[0]:
                first[0] = False
                show(" ")
            show(chunk)
        return after

    def held(self, messages: Sequence[Message]) -> Answer:
        """The model's answer, not shown yet."""
        return stream_answer(self.backend, messages, self.settings, None, self.timings, self.start,
                             earlier=self.earlier if messages is self.messages else ())

    def grounded(self, reading: Reading) -> Reply:
        """A memory answer: a part no record answers gets "You haven't told me ..." (told.py);
        else the model's answer, shown when no name or number in it lacks a source and it draws
        on the evidence (evidence.py), part by part, not by the user's own name; a name or number
        without a source gets one more try, strictly and without the dialogue; else the records
        that answer said back by the program, or "I don't remember that." and the closest memory."""
        dialogue, message = self.dialogue_messages(), reading.text
        names = [*filter(None, map(introduced_name, dialogue)), *user_names(self.memories)]
        if reading.own_name and names:  # the newest introduction in the dialogue, else the best memory's
            return Reply(self.said(f"Your name is {names[0]}."), "template:name")
        candidates = [*map(from_memory, self.memories), *map(from_dialogue, dialogue)]
        evidence, untold = relevant(message, candidates), untold_parts(message, candidates) if candidates else []
        if untold:  # some part no record answers: said so, with the closest thing told
            known = next(iter(said_by_user(evidence)), None)
            return Reply(self.said(not_told_reply(untold, known)), "template:not-told")
        told = answering(message, candidates)
        ordered = [*told, *(c for c in evidence if c not in told)]
        said_back = " ".join(c.told for c in told)  # each part's record, said back by the program
        if len(told) < 2:
            said_back = said_back_evidence(ordered, message) if ordered else ""
        asked = _Asked(message, ordered, candidates, names, said_back)
        chosen = winning(message, candidates, self.backend)
        first = self.held(self.messages)
        if first.interrupted or (not self.missing(first) and self.answers(first, asked)):
            return self.shown_or_chosen(first, asked, chosen, "grounded")
        if chosen:
            return Reply(self.said(composed(chosen), first.tokens), "template:chosen")
        if said_back and not self.missing(first):  # it named nothing new, and said nothing of what was said
            return Reply(self.said(said_back, first.tokens), "template:evidence")
        retry_start = time.perf_counter()
        system = Message("system", f"{self.messages[0].content}\n\n{STRICT}")
        second = self.held([system, self.messages[-1]])
        self.timings["grounding_retry_s"] = time.perf_counter() - retry_start
        if second.interrupted or (not self.missing(second) and self.answers(second, asked)):
            return self.shown_or_chosen(second, asked, chosen, "retried")
        if said_back:
            return Reply(self.said(said_back, second.tokens), "template:evidence")
        return Reply(self.said(not_remembered(self.memories), second.tokens), "dont-remember")

    def shown_or_chosen(self, answer: Answer, asked: _Asked, chosen: Sequence[Choice], route: str) -> Reply:
        """A checked answer as the program stands behind it: shown when it holds each part's
        chosen value (when the chooser chose) and claims nothing of a person the records and
        the question do not hold (content.py); else the chosen answer, or "I'm not sure." with
        the records that answer said back (what was not told, without them)."""
        text = answer.text
        if answer.interrupted:
            return Reply(self.said(text, answer.tokens, True), route)
        if chosen and not all(c.best is not None and c.best.text.lower() in text.lower() for c in chosen):
            return Reply(self.said(composed(chosen), answer.tokens), "template:chosen")
        cut = answer.tokens.completion >= self.settings.max_tokens  # its last word may be cut: not checked
        checked = text.rsplit(None, 1)[0] if cut and " " in text.strip() else text
        if unheld_claims(checked, [asked.question, *(c.text for c in asked.candidates)]):
            if asked.said_back:
                return Reply(self.said(f"I'm not sure. {asked.said_back}", answer.tokens), "template:not-held")
            known = next(iter(said_by_user(asked.evidence)), None)
            return Reply(self.said(not_told_reply([asked.question], known), answer.tokens), "template:not-told")
        return Reply(self.said(text, answer.tokens), route)

    def answers(self, answer: Answer, asked: _Asked) -> bool:
        """Whether `answer` answers: it neither apologizes nor refuses, draws on the evidence
        when there is some, and on a record that answers each part of the question."""
        if apologizes_or_refuses(answer.text, asked.question):
            return False
        if asked.evidence and not draws_on(answer.text, asked.question, asked.evidence):
            return False
        return draws_on_each_part(answer.text, asked.question, asked.candidates, asked.names)

    def dialogue_messages(self) -> list[str]:
        """The user's earlier messages in the prompt's dialogue, newest first."""
        return [m.content for m in reversed(self.messages[1:-1]) if m.role == "user"]

    def missing(self, answer: Answer) -> bool:
        """Whether `answer` has a name or number no source holds (its last word left out when
        the token limit cut it)."""
        start = time.perf_counter()
        cut = answer.tokens.completion >= self.settings.max_tokens
        found = bool(unsupported(answer.text, self.sources, cut=cut))
        self.timings["grounding_check_s"] = self.timings.get("grounding_check_s", 0.0) + time.perf_counter() - start
        return found

    def guarded(self, reading: Reading, user_names: Sequence[str], plan: ReplyPlan) -> Reply:
        """The model's reply to a plain statement or a courtesy when it passes
        `statement_problem`, else the plan's own reply (said back, or a courtesy)."""
        first = self.held(self.messages)
        problem = None if first.interrupted else statement_problem(first.text, reading, self.sources, user_names)
        kind = reading.courtesy if plan.kind == "courtesy" else None
        if problem is None and kind is not None and not answers_courtesy(first.text, kind):
            problem = "not a greeting or thanks back"
        if problem is None:
            return Reply(self.said(first.text, first.tokens, first.interrupted), "model:checked")
        return Reply(self.said(plan.text, first.tokens), f"template:{plan.kind}")


def not_remembered(memories: Sequence[str]) -> str:
    """"I don't remember that.", with the closest memory the prompt showed (best first, read
    without the prompt's markup), which the user may find the answer in."""
    if not memories:
        return DONT_REMEMBER
    return f"{DONT_REMEMBER} The closest note I have: {from_memory(memories[0]).note}"


def earlier_answers(recent: Sequence[Turn], message: str) -> list[str]:
    """The dialogue's answers (`recent`) to other messages than this one (the same question
    asked again may get the same answer)."""
    asked = " ".join(message.split()).lower()
    return [answer.content for question, answer in itertools.pairwise(recent)
            if question.role == "user" and answer.role == "assistant"
            and " ".join(question.content.split()).lower() != asked]


def user_names(memories: Sequence[str], introduced: str | None = None) -> list[str]:
    """The user's names the prompt shows: `introduced` in the message, or in a memory ("Your
    name is Ada", "You prefer to be called Alex")."""
    names = [name for name in (introduced,) if name]
    for text in memories:
        name = introduced_name(text.replace("Your name is", "My name is").replace("You prefer to be called", "Call me"))
        if name:
            names.append(name)
    return names
