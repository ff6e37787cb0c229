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
- a question for an amount that states a number of its own and no rule, reading or tool
  worked out ("Eva is 3 years older than her brother. How old is Eva?", "28 degres celsius in
  farenheit"; reading/problems): never the model's free text and never the user's past, but
  "I'm not sure" with what the message lacks when that is read ("I'd need her brother's age"),
  else the numbers it read;
- a question for a day of a day the message names that no date rule read ("my sis says the
  party is a week from friday, whats the date of that"): "I'm not sure" with the days read and
  what is needed, at once; never the model's guess at a date;
- a question about the conversation's past (memory_answers.py): "what's my name?" is the
  program's when an introduction in the dialogue or a memory shown gives it ("Your name is
  Dana."); a question that asks when is the program's, the day the event happened read from
  the record that tells it (when_answer.py: "On Thursday 12 November 2026 (4 days ago). ...");
  else the model's answer, held until checked: a name or number no source holds gets
  one retry, strict and without the dialogue; an answer that apologizes, refuses or says nothing
  of the evidence (evidence.py) is replaced by the evidence said back ("You told me your partner
  Sam made you a cake."); with no evidence, "I don't remember that." with the closest memory;
- a question for an amount with no number of its own that memory did not take (reading/problems
  `amount_without_numbers`): of the user's own things ("how much will I pay for the apples?"),
  "I'm not sure: I can't work that out from what you gave me"; of what is known or usual ("how
  tall is the Eiffel Tower?"), the model's answer after "I'm not sure; I can't check this, so
  take it as a guess:" (a small model's numbers are mostly wrong);
- a plain statement about oneself, or one that shares a feeling ("rough day at work",
  feelings.py): the model's reply, held until checked (`statement_problem`: the user's
  language, no apology, no "the user", not taking the user's words or name as its own, no
  unsupported name or number, short, no cheering at something hard or condoling at good news),
  else "That sounds hard. I'm here if you want to talk about it." / "That's wonderful to hear!"
  for a feeling, the statement said back ("Got it: you prefer tea over coffee."), or thanks for
  telling in the user's language; a greeting or thanks is also checked to greet or thank back;
- a value asked of quantities or calendar days the message names, in any form, that nothing
  above read ("6 ft 2 in to cm", "feb 2026 how many days", "is 30 c hot in fahrenheit"): "I'm not
  sure" with the numbers it read, never the model's free text; a question asked in words is
  not one ("who won the world cup in 1998?", "write a haiku about 3 cats"), nor is chat ("lol 3
  more days till the weekend");
- anything else (questions, requests, greetings, thanks): the model's answer, streamed; with two
  numbers or more and no answer in words asked, held until it names no number nobody worked out.

The program's acknowledgements of corrections and its said-back statements are in English: in
another language, a correction is a statement and is thanked for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import date, datetime
from functools import partial
from typing import NamedTuple

from ..backends.base import Backend
from ..grounding.support import unsupported
from ..reading import Reading
from ..reading.introductions import introduced_name
from ..reading.problems import asks_for_words, not_worked_out
from ..types import GenerationSettings, Message
from .aliases import with_antecedents
from .answering import Answer, stream_answer
from .choose import Choice, composed, winning
from .content import denied_claims, speaks_of_whom, unheld_claims
from .evidence import Candidate, content_words, draws_on, from_dialogue, from_memory, relevant, said_back_evidence
from .latest import changed, history_reply, outdated
from .memory_answers import after_introduction, not_remembered, user_names
from .not_told import closest_told, not_told_reply
from .phrases import answers_courtesy
from .plans import ReplyPlan, past_plan
from .plans import plan_reply as plan_reply  # re-exported: the agent's and the tests' one place for replies
from .quotes import quotes_inside, without_invented
from .reply_checks import apologizes_or_refuses
from .result import TokenCounts
from .statements import statement_problem
from .told import answering, asked, draws_on_each_part, names_each_kind, parts, said_by_user, untold_parts
from .when_answer import Told, answer_when

# Added to the system message when a memory answer is asked again: the first named or counted
# something no memory holds.
STRICT = "Answer only with what the notes from memory say. If they do not say it, answer: I don't remember."
OnToken = Callable[[str], None] | None


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
                 earlier: Sequence[str] = (), sources: Sequence[str] = (), memories: Sequence[str] = (),
                 today: datetime | None = None, told: Sequence[Told] = ()) -> None:
        self.backend, self.messages, self.settings = backend, list(messages), settings
        self.on_token, self.timings, self.start = on_token, timings, start
        self.earlier, self.sources, self.memories = list(earlier), list(sources), list(memories)
        self.today, self.told = today, list(told)  # the question's day; the records a "when" is answered from

    def reply(self, plan: ReplyPlan, reading: Reading, user_names: Sequence[str] = ()) -> Reply:
        if plan.kind in ("about-me", "farewell", "problem", "date"):
            return Reply(self.said(plan.text), f"template:{plan.kind}")
        if plan.kind in ("introduction", "correction"):
            said = self.said(plan.text)
            if not plan.model_after:
                return Reply(said, f"template:{plan.kind}")
            if past_plan(reading, self.memories) is not None:  # "Hi, I'm Sam. Where do I live?": answered from memory
                return self.after_opening(plan, said, self.grounded)(after_introduction(reading))
            return self.model_after(plan, said)
        if plan.kind == "past":
            return self.grounded(reading)
        if plan.kind in ("statement", "courtesy"):
            return self.guarded(reading, user_names, plan)
        if plan.kind == "calculation":
            return self.calculated(reading)
        if plan.kind == "estimate":  # the model's guess, after the program says it is one
            return self.model_after(plan, self.said(plan.text))
        if len(reading.numbers) >= 2 and not asks_for_words(reading.text):  # chat with quantities: held, a
            # number worked out without a tool is a guess
            return self.numbers_checked(reading)
        return Reply(stream_answer(self.backend, self.messages, self.settings, self.on_token, self.timings,
                                   self.start, earlier=self.earlier), "model")

    def numbers_checked(self, reading: Reading) -> Reply:
        """The model's reply to a message with quantities of its own that no tool answered
        ("convrt 350 euros to dollars at 1.0862 dolars per euro"): shown when it names no number
        that neither the message nor the prompt holds, else "I'm not sure" with the numbers read
        (a small model's sum is a guess)."""
        first = self.held(self.messages)
        if first.interrupted or not self.missing(first):
            return Reply(self.said(first.text, first.tokens, first.interrupted), "model")
        return Reply(self.said(not_worked_out(reading.text), first.tokens), "template:calculation")

    def model_after(self, plan: ReplyPlan, opening: Answer) -> Reply:
        """The model's answer streamed after the plan's opening, shown already (`opening`)."""
        rest = stream_answer(self.backend, self.messages, self.settings, self.on_token_after(), self.timings,
                             self.start, earlier=self.earlier)
        return Reply(rest._replace(text=f"{plan.text} {rest.text}", first_token_at=opening.first_token_at),
                     f"template:{plan.kind}+model")

    def said(self, text: str, tokens: TokenCounts | None = None, interrupted: bool = False) -> Answer:
        """`text` shown at once, as the whole answer."""
        shown = time.perf_counter()
        self.timings["first_token_s"] = shown - self.start
        if self.on_token is not None and text:
            self.on_token(text)
        self.timings["answer_s"] = time.perf_counter() - self.start
        return Answer(text, interrupted, tokens or TokenCounts(), shown)

    def after_opening(self, plan: ReplyPlan, opening: Answer, make: Callable[[Reading], Reply]
                      ) -> Callable[[Reading], Reply]:
        """`make`, its answer shown after the plan's opening (a space between them)."""
        def made(reading: Reading) -> Reply:
            shown, self.on_token = self.on_token, self.on_token_after()
            try:
                rest = make(reading)
            finally:
                self.on_token = shown
            answer = rest.answer._replace(text=f"{plan.text} {rest.answer.text}", first_token_at=opening.first_token_at)
            return Reply(answer, f"template:{plan.kind}+{rest.route}")
        return made

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
        a record with a later change gets both said back, the newest last (latest.py); else the
        model's answer, its quotes that are not verbatim removed (quotes.py), shown when no name
        or number in it lacks a source and it draws on the evidence (evidence.py), part by part,
        not by the user's own name; a name or number without a source gets one more try,
        strictly and without the dialogue; else the records that answer said back by the program,
        or "I don't remember that." and the closest memory."""
        dialogue, message = self.dialogue_messages(), reading.text
        names = [*filter(None, map(introduced_name, dialogue)), *user_names(self.memories)]
        if reading.own_name and names:  # the newest introduction in the dialogue, else the best memory's
            return Reply(self.said(f"Your name is {names[0]}."), "template:name")
        candidates = with_antecedents([c for c in [*map(from_memory, self.memories), *map(from_dialogue, dialogue)]
                                       if not quotes_inside(c.text)])  # an earlier answer that quoted memory never is
        evidence, untold = relevant(message, candidates), untold_parts(message, candidates) if candidates else [
            part for part in parts(message) if asked(part, frozenset())[1] in _VALUES]  # nothing recalled: "how many"
        if untold:  # some part no record answers: said so, with the closest thing told
            return Reply(self.said(not_told_reply(untold, closest_told(evidence, candidates))), "template:not-told")
        update = changed(message, candidates)  # a day changed since is the day ("moved to 21 April")
        when = self.when(message, candidates, dialogue, update)
        if when is not None:  # a part asks when: the program's day, from the record that tells it
            return Reply(self.said(when), "template:when")
        if update is not None:  # the old value as history, the newest as what holds now
            return Reply(self.said(history_reply(*update)), "template:evidence")
        told = answering(message, candidates)
        ordered = [*told, *(c for c in evidence if c not in told)]
        said_back = " ".join(c.told for c in told)  # each part's record, said back by the program
        if len(told) < 2:
            mine = said_by_user(ordered) or ordered  # the user's words before its own
            said_back = said_back_evidence(mine, message) if mine else ""
        return self.checked(_Asked(message, ordered, candidates, names, said_back), said_back)

    def checked(self, asked: _Asked, said_back: str) -> Reply:
        """The model's memory answer when it passes the checks (`acceptable`) and the chooser and
        the content check (`shown_or_chosen`), once more strictly when it named something no
        source holds; else the chosen answer, `said_back`, or not told."""
        chosen = winning(asked.question, asked.candidates, self.backend)
        first = self.held(self.messages)
        shown = self.acceptable(first, asked)
        if shown is not None:
            return self.shown_or_chosen(first._replace(text=shown), asked, chosen, "grounded")
        if chosen:
            return Reply(self.said(composed(chosen), first.tokens), "template:chosen")
        if not content_words(without_invented(first.text, asked.candidates)):  # only quotes nobody said
            return self.evidence_or_not_told(asked, said_back, first)
        if said_back and not self.missing(first):  # it named nothing new, and said nothing of what was said
            return Reply(self.said(said_back, first.tokens), "template:evidence")
        retry_start = time.perf_counter()
        system = Message("system", f"{self.messages[0].content}\n\n{STRICT}")
        second = self.held([system, self.messages[-1]])
        self.timings["grounding_retry_s"] = time.perf_counter() - retry_start
        shown = self.acceptable(second, asked)
        if shown is not None:
            return self.shown_or_chosen(second._replace(text=shown), asked, chosen, "retried")
        if said_back:
            return Reply(self.said(said_back, second.tokens), "template:evidence")
        return Reply(self.said(not_remembered(self.memories), second.tokens), "dont-remember")

    def when(self, question: str, candidates: Sequence[Candidate], dialogue: Sequence[str],
             update: tuple[Candidate, Candidate] | None = None) -> str | None:
        """The program's answer to a question with a when-part (when_answer.py), from the records
        shown and the dialogue's earlier messages (said today), or None; with `update` (a record
        and the change said since: latest.changed), the records it changed are left out and the
        change is read when none of the others tells the event."""
        if self.today is None:
            return None
        kept = partial(_not_changed, update)
        candidates = [c for c in candidates if kept(c.text, c.day)]
        told = [t for t in self.told if kept(t.text, t.said.date())]  # a record changed since is left out
        change = update[1] if update is not None else None
        correction = [t for t in told if change is not None and not t.fact and t.said.date() == change.day
                      and content_words(t.text) <= content_words(change.text)]
        return answer_when(question, [*told, *(Told(text, self.today) for text in dialogue)], candidates, self.today,
                           correction)

    def evidence_or_not_told(self, asked: _Asked, said_back: str, answer: Answer) -> Reply:
        """The evidence said back by the program, or, with none, that it was not told."""
        if said_back:
            return Reply(self.said(said_back, answer.tokens), "template:evidence")
        return Reply(self.said(not_told_reply(parts(asked.question), None), answer.tokens), "template:not-told")

    def acceptable(self, answer: Answer, asked: _Asked) -> str | None:
        """The answer's text without the quotes nobody said (quotes.py) when what is left says
        something the question does not ("Do you play the piano?" says nothing), names nothing
        no source holds and answers (`answers`); an interrupted answer as it is."""
        if answer.interrupted:
            return answer.text
        text = without_invented(answer.text, asked.candidates)
        if not content_words(text) - content_words(asked.question):  # nothing, or the question said back
            return None
        if self.missing(answer._replace(text=text)) or not self.answers(text, asked):
            return None
        return text

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
        sources = [asked.question, *(c.text for c in asked.candidates)]
        if unheld_claims(checked, sources) or denied_claims(checked, sources):  # "You are not vegetarian."
            if asked.said_back:
                return Reply(self.said(f"I'm not sure. {asked.said_back}", answer.tokens), "template:not-held")
            known = next(iter(said_by_user(asked.evidence)), None)
            return Reply(self.said(not_told_reply([asked.question], known), answer.tokens), "template:not-told")
        return Reply(self.said(text, answer.tokens), route)

    def answers(self, text: str, asked: _Asked) -> bool:
        """Whether `text` answers: it neither apologizes nor refuses, draws on the evidence
        when there is some, and on a record that answers each part of the question."""
        if apologizes_or_refuses(text, asked.question):
            return False
        if asked.evidence and not draws_on(text, asked.question, asked.evidence):
            return False
        if not speaks_of_whom(text, asked.question, asked.candidates):  # the user's news for the boyfriend's job
            return False
        return draws_on_each_part(text, asked.question, asked.candidates, asked.names) and names_each_kind(
            text, asked.question, asked.candidates)  # "what's my job?" is answered with a job

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
        `statement_problem` and quotes nothing nobody said (quotes.py), else the plan's own reply
        (said back, or a courtesy)."""
        first = self.held(self.messages)
        problem = None if first.interrupted else statement_problem(first.text, reading, self.sources, user_names)
        said = [*map(from_memory, self.memories), *map(from_dialogue, [reading.text, *self.dialogue_messages()])]
        if problem is None and not first.interrupted and without_invented(first.text, said) != first.text:
            problem = "a quote nobody said"  # "- 3 November 2026, you: ..." copied from the prompt's form
        kind = reading.courtesy if plan.kind == "courtesy" else None
        if problem is None and kind is not None and not answers_courtesy(first.text, kind):
            problem = "not a greeting or thanks back"
        if problem is None:
            return Reply(self.said(first.text, first.tokens, first.interrupted), "model:checked")
        return Reply(self.said(plan.text, first.tokens), f"template:{plan.kind}")

    def calculated(self, reading: Reading) -> Reply:
        """A calculation that no exact reading and no tool answered: never the model's free
        text (a small model's sum is a guess, and "Yes, that's correct" passes any check of its
        numbers), but "I'm not sure" with what the message lacks or the numbers it read."""
        return Reply(self.said(not_worked_out(reading.text)), "template:calculation")


_VALUES = frozenset({"number", "name", "age", "day"})  # values a model's answer would have to invent


def _not_changed(update: tuple[Candidate, Candidate] | None, text: str, day: date | None) -> bool:
    """Whether a record (its text and day) is not one that `update` (latest.changed) changed."""
    return update is None or not outdated(*update, text, day)
