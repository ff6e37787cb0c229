"""Rule-based extraction of common durable statements ("my name is ...", "I live in ...",
"I'm studying for ..."), so that a tiny model never silently drops them. Each rule turns one
clause into a third-person fact and, where the fact has one slot, a (subject, attribute) key."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from ...reading.clauses import Clause, split_clauses
from ...reading.patterns import LazyPattern
from ...reading.words import FUNCTION_WORDS, MONTHS, compounds
from .person import third_person
from .words import ADVERBS, adverb_run

Key = tuple[str, str]

# "never" is left out: "I never like X" must reach the "dislikes" rule, not "likes".
ADV = adverb_run([word for word in ADVERBS if word != "never"]
                 + ["genuinely", "secretly", "strongly", "so", "very much"])
I_AM = r"I(?:'m| am)"
_NOT_NAME = (r"(?!(?:later|tomorrow|back|when|if|anytime|at|on|sometime|whenever|now|soon|tonight|today|"
             r"crazy|old|a|an|the|maybe|please|again|whatever|anything|not|that|it|by|in|out|up|so|too|"
             r"what|whenever|if|and|but|or|because|with|for|to)\b)")
NAME = _NOT_NAME + r"(?P<v>[^\W\d_][\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2})"
# Objects that point at the conversation, not at something the user durably likes or has.
_DEICTIC = LazyPattern(
    r"^(?:it|its|it's|that|that's|this|these|those|them|they|you|your|yours|ya|u|how|what|when|"
    r"where|why|who|which|whatever|the way|the idea|the thought|to hear|hearing|seeing|so|too|"
    r"very|one|ones|him|her|his|their|everything|anything|nothing|something|all that|all of it|"
    r"doing that|to do that|to see|to know|to try|to think|to say|to help|to meet|to talk|"
    r"to chat|talking|chatting|here|there|if|because|about it|the same|the sound of|em|myself|"
    r"some of|all of)\b",
    re.I,
)
_PARTNER = LazyPattern(r"\b(?:you|your|yours|you're|ya|y'all)\b", re.I)
_PASSING_HAVE = LazyPattern(
    r"^(?:an?|some|no|one|any|the|lots of|a lot of|many|so many|few|a few|two)\s+(?:\w+\s+)?"
    r"(?:question|questions|idea|ideas|clue|feeling|feelings|problem|problems|issue|issues|chance|"
    r"time|times|minute|minutes|second|moment|meeting|meetings|appointment|call|calls|doubt|doubts|"
    r"suggestion|suggestions|request|favor|favour|headache|cold|fever|day|night|week|weekend|"
    r"plan|plans|look|point|reason|thought|thoughts|word|words|work|homework|things to do|lot|"
    r"blast|ball|fun|good one|great one|nice one|way|opportunity|date|trip|party|test run|guess|"
    r"hunch|sense|story|stories|news|update|surprise|concern|concerns|confession|announcement|"
    r"dream|dreams|nightmare|bad day|long day|busy day|experience|memory|memories)\b",
    re.I,
)
_LEADING_ADVERBIAL = LazyPattern(
    r"^(?:in|on|at|during|for|after|before|most|every|these|nowadays|lately|usually|sometimes|as|"
    r"outside of|besides|apart from)\b(?:(?:(?! I\b)[^,]){0,40}?,? (?=I\b)|[^,]{0,40}, (?=my\b))",
    re.I,
)
# Capitalized words after "I'm" that are not a name ("I'm Sorry", "I'm Fine").
_NOT_A_NAME = LazyPattern(r"^(?:sorry|fine|good|okay|ok|back|here|done|new|so|not)\b", re.I)


@dataclass(frozen=True)
class RuleFact:
    """A fact a rule produced from one clause."""

    text: str
    key: Key | None
    rule: str
    clause: str


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: LazyPattern
    key: Key | Callable[[re.Match[str]], Key | None] | None = None
    template: str | None = None  # None: the whole clause in the third person
    any_clause: bool = False  # also fires on clauses that are not first-person statements
    reject: LazyPattern | None = None  # objects that make the clause passing, not durable

    def apply(self, clause: Clause) -> RuleFact | None:
        if not (clause.first_person_statement or (self.any_clause and clause.act != "question")):
            return None
        match = self.pattern.search(clause.text)
        if match is None or not _object_ok(match, self.reject):
            return None
        key = self.key(match) if callable(self.key) else self.key
        text = self.template.format(v=_tidy(match.group("v"))) if self.template else third_person(clause.text)
        return RuleFact(text=text, key=key, rule=self.name, clause=clause.text)


def _object_ok(match: re.Match[str], reject: LazyPattern | None) -> bool:
    value = match.groupdict().get("v")
    if value is None:
        return True
    value = value.strip()
    if _DEICTIC.match(value) or _PARTNER.search(value) or (reject is not None and reject.match(value)):
        return False
    words = [word.lower() for word, _, _ in compounds(value)]
    return any(w not in FUNCTION_WORDS for w in words) and len(words) <= 30


def _tidy(value: str) -> str:
    value = value.strip().rstrip(".!?,;")
    return " ".join(w[:1].upper() + w[1:] for w in value.split())


def _rule(name: str, pattern: str, key: Key | Callable | None = None, template: str | None = None,
          any_clause: bool = False, reject: LazyPattern | None = None) -> Rule:
    return Rule(name, LazyPattern(pattern, re.I), key, template, any_clause, reject)


def _favorite_key(match: re.Match[str]) -> Key:
    return ("user", "favorite " + " ".join(match.group("what").lower().split()))


def _born_key(match: re.Match[str]) -> Key:
    when = re.search(r"\d|" + "|".join(MONTHS), match.group("v"), re.I)
    return ("user", "birthday") if when else ("user", "birthplace")


def _exam_key(match: re.Match[str]) -> Key | None:
    exam = re.search(r"\b(?:exam|exams|test|finals|midterms?|boards|certification|bar|sat|gre|gmat|"
                     r"mcat|lsat|ielts|toefl)\b", match.group("v"), re.I)
    return ("user", "exam") if exam else None


_EXAMS = r"(?:exam|exams|test|finals|midterm|midterms|boards)"
RULES: tuple[Rule, ...] = (
    # names
    _rule("name", rf"^my (?:first |full |real )?name(?: is|'s) {NAME}", ("user", "name"),
          "The user's name is {v}."),
    _rule("name", rf"^{I_AM} called {NAME}", ("user", "name"), "The user's name is {v}."),
    _rule("name", rf"^{I_AM} (?P<v>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)(?:\s*,.*)?$", ("user", "name"),
          "The user's name is {v}.", reject=_NOT_A_NAME),
    _rule("name", rf"^{I_AM} {NAME},? (?:nice|pleased|glad|good) to meet you\b", ("user", "name"),
          "The user's name is {v}.", any_clause=True),
    _rule("preferred name", rf"\b(?:call me|I go by|my nickname is|I prefer to be called) {NAME}",
          ("user", "preferred name"), "The user prefers to be called {v}.", any_clause=True),
    # age, birthday, time zone
    _rule("age", rf"^{I_AM} (?P<v>\d{{1,3}})(?:\s*(?:years? old|yrs? old|yo)\b.*)?$", ("user", "age"),
          "The user is {v} years old."),
    _rule("birthday", r"^my (?:birthday|bday|date of birth) is (?P<v>.+)", ("user", "birthday")),
    _rule("born", r"^I was born (?:on|in) (?P<v>.+)", _born_key),
    _rule("time zone", r"^my time ?zone is (?P<v>.+)", ("user", "time zone"), "The user's time zone is {v}."),
    _rule("time zone", rf"^{I_AM} in (?:the )?(?P<v>[\w+:-]+(?: [\w+:-]+)?) time ?zone", ("user", "time zone"),
          "The user's time zone is {v}."),
    # where the user lives / comes from
    _rule("home", rf"^I(?:'ve| have)? {ADV}(?:live|lived|reside|resided) in (?P<v>.+)", ("user", "home city")),
    _rule("home", rf"^I {ADV}moved to (?P<v>.+)", ("user", "home city")),
    _rule("home", rf"^{I_AM} {ADV}(?:based|living) in (?P<v>.+)", ("user", "home city")),
    _rule("lives", rf"^I {ADV}live (?:on|near|by|with|alone|close to|in an?|in the) ?(?P<v>.*)"),
    _rule("origin", rf"^{I_AM} {ADV}(?:originally )?from (?P<v>.+)", ("user", "hometown")),
    _rule("origin", r"^I (?:grew up|was raised|was born and raised) (?:in|on|near) (?P<v>.+)", ("user", "hometown")),
    # work and study
    _rule("job", rf"^I {ADV}work(?:ed)? as (?:an? )?(?P<v>.+)", ("user", "job")),
    _rule("job", r"^my (?:job|profession|occupation) is (?P<v>.+)", ("user", "job")),
    _rule("job", rf"^I(?:'ve| have) {ADV}been (?:an?) (?P<v>.+)", ("user", "job")),
    _rule("job", rf"^I {ADV}(?:started|got|have|found) (?:a |my )?new job (?P<v>(?:at|as|in|with) .+)",
          ("user", "job")),
    _rule("employer", rf"^I {ADV}work (?:at|for) (?P<v>.+)", ("user", "employer")),
    _rule("employer", rf"^{I_AM} {ADV}(?:employed|working) (?:at|by|for) (?P<v>.+)", ("user", "employer")),
    _rule("work field", rf"^I {ADV}work in (?P<v>.+)", ("user", "work field")),
    _rule("work", rf"^I {ADV}work (?P<v>(?:from home|remotely|part[- ]time|full[- ]time|nights|night shifts?|"
                  r"two jobs|(?:at )?home|as|on|with|in)\b.*)"),
    _rule("occupation", rf"^I {ADV}(?:teach|own|run|manage|coach|volunteer|tutor|mentor) (?P<v>.+)"),
    _rule("exam", rf"^{I_AM} {ADV}(?:studying|preparing|revising|cramming|registered|signed up|training|"
                  r"practicing|practising) for (?P<v>.+)", _exam_key),
    _rule("exam", rf"^I {ADV}(?:have|'ve got|take|am taking|'m taking) (?:an? |my |the |two |three )?"
                  rf"(?P<v>.*\b{_EXAMS}\b.*)", ("user", "exam")),
    _rule("exam", rf"^my (?P<v>.+?\b{_EXAMS}\b.*?) (?:is|are) (?:on|in|at|next|this|coming|due)\b.*",
          ("user", "exam")),
    _rule("deadline", r"^my (?P<v>.+?) (?:is|are) due\b.*", ("user", "deadline")),
    _rule("deadline", r"^(?:my|the) deadline (?:for .+ )?is (?P<v>.+)", ("user", "deadline"), any_clause=True),
    _rule("deadline", rf"^I {ADV}have (?:a|my|the) deadline (?P<v>.+)", ("user", "deadline")),
    _rule("study", rf"^{I_AM} {ADV}(?:studying|majoring in|learning|a student (?:of|at|in)|in (?:college|school|"
                   rf"university|grad school|high school) (?:for|studying)) (?P<v>.+)", ("user", "studies")),
    _rule("study", rf"^I {ADV}(?:study|major in|majored in|studied|graduated (?:from|in|with)|"
                   rf"have an? (?:\w+ )?degree in|got my degree in) (?P<v>.+)", ("user", "education")),
    # what the user is
    _rule("status", rf"^{I_AM} {ADV}(?P<v>married|single|divorced|engaged|widowed|separated)\b.*",
          ("user", "relationship status")),
    _rule("diet", rf"^{I_AM} {ADV}(?:an? )?(?P<v>vegan|vegetarian|pescatarian|carnivore|keto)\b.*", ("user", "diet")),
    _rule("identity", rf"^{I_AM} {ADV}(?:an?|the only|the oldest|the youngest) "
                      r"(?!(?:bit|little|lot|tad|mess|wreck|fan of (?:you|yours)|sucker for (?:you|that))\b)(?P<v>.+)"),
    _rule("condition", rf"^{I_AM} {ADV}(?P<v>retired|unemployed|self-employed|pregnant|diabetic|"
                       r"allergic to .+|(?:lactose|gluten) intolerant|colou?r ?blind|deaf|blind|left-handed|"
                       r"disabled|autistic|an only child|adopted|bilingual|trilingual|fluent in .+|a twin|"
                       r"into .+|(?:a )?member of .+|part of .+|passionate about .+|obsessed with .+|"
                       r"(?:really |very )?interested in .+|afraid of .+|scared of .+|terrified of .+|"
                       r"addicted to .+|(?:not )?(?:a )?(?:big |huge )?fan of .+|(?:very |really )?good at .+|"
                       r"(?:very |really )?bad at .+|married to .+|working on .+|building .+|writing an? .+|"
                       r"saving (?:up )?for .+|training to .+|in (?:college|school|high school|university|"
                       r"grad school|the army|the navy|the air force|the military|a band|a club|a team)\b.*)$"),
    # likes and dislikes
    _rule("favorite", r"^my (?:favou?rite|fave|fav) (?P<what>[\w -]+?) (?:is|are|would be|has to be|was) (?P<v>.+)",
          _favorite_key),
    _rule("hobby", r"^my (?:hobby|hobbies|passion|pastime|pastimes) (?:is|are|include|includes) (?P<v>.+)"),
    _rule("favorite", r"^(?P<v>.+?) (?:is|are) (?:my|one of my) (?:absolute )?(?:favou?rite|fave|fav)\b.*"),
    _rule("likes", rf"^I {ADV}(?:like|love|enjoy|adore|prefer|fancy|dig|collect) (?P<v>.+)"),
    _rule("dislikes", rf"^I {ADV}(?:hate|dislike|detest|despise|loathe|can't stand|cannot stand|"
                      r"(?:don't|do not|never) (?:like|enjoy|care for|eat|drink|smoke|drive|watch|own|"
                      r"want)|can't eat|cannot eat|avoid|am not a fan of|'m not a fan of|"
                      r"am not into|'m not into|can't live without|couldn't live without) (?P<v>.+)"),
    _rule("dislikes", rf"^I {ADV}(?:don't|do not|never) (?P<v>drink|smoke|eat meat|drive|gamble|swear)\b.*"),
    # possessions, family, pets, habits
    _rule("has", rf"^I {ADV}(?:have|'ve got|have got|own|got|adopted|rescued)\s+(?P<v>(?:an?|one|two|three|four|"
                 r"five|six|seven|eight|nine|ten|\d+|several|many|some|lots of|a lot of|no|twin)\s+.+)",
          reject=_PASSING_HAVE),
    _rule("has", rf"^I {ADV}(?:have|'ve got) (?P<v>(?:kids|children|pets|dogs|cats|siblings|brothers|sisters|"
                 r"twins|grandkids|grandchildren|diabetes|asthma|allergies|anxiety|depression|adhd|autism|"
                 r"arthritis|cancer|epilepsy|insomnia|glasses|braces|tattoos|a tattoo)\b.*)"),
    _rule("family", r"^my (?P<who>wife|husband|partner|spouse|fianc[eé]e?|boyfriend|girlfriend|son|daughter|sons|"
                    r"daughters|kids?|children|child|baby|mom|mother|mum|dad|father|parents|brother|sister|"
                    r"brothers|sisters|siblings?|twin|grandma|grandmother|grandpa|grandfather|grandparents|"
                    r"grandkids|grandchildren|family|dog|dogs|cat|cats|pet|pets|puppy|kitten|horse|bird|fish|"
                    r"hamster|parrot|rabbit|bunny)(?:'s name)?\s+"
                    r"(?:is|are|was|were|works|work|lives|live|loves|love|likes|like|has|"
                    r"have|named|called|just|also|and I)\b(?P<v>.*)"),
    # "my daughter Lena is 7", "my dog wonton says hello": a relative named, in the user's words
    _rule("relative", r"^my (?:(?:beloved|little|older|younger|big|baby|best|twin|new|old|dear)\s+)?"
                      r"(?P<who>wife|husband|partner|spouse|fianc[eé]e?|boyfriend|girlfriend|bf|gf|son|daughter|kid|"
                      r"child|baby|mom|mother|mum|dad|father|brother|sister|twin|grandma|grandmother|grandpa|"
                      r"grandfather|grandson|granddaughter|aunt|uncle|niece|nephew|cousin|friend|roommate|flatmate|"
                      r"neighbou?r|dog|cat|puppy|kitten|horse|bird|hamster|parrot|rabbit|bunny|tortoise|turtle)\s+"
                      r"(?:(?-i:[A-Z])[\w'-]+\s+(?:is|was|has|lives|works|loves|likes|says|turns|turned|just|and)\b"
                      r"|[a-z][\w'-]+\s+(?:is|was|has|lives|works|loves|likes|says|turns|turned)\b)(?P<v>.*)"),
    _rule("habit", rf"^I {ADV}(?:play|drive|ride|speak|paint|draw|knit|sew|cook|bake|garden|hike|run|swim|surf|"
                   r"ski|snowboard|dance|sing|write|read|watch|listen to|attend|practice|practise|train|"
                   r"work out|exercise|meditate|fish|hunt|camp|travel|vote|belong to|support|root for|"
                   r"grow|raise|breed|foster|homeschool|go to church|go to the gym|spend (?:my|most|a lot)|"
                   r"make|build|brew|fix|restore|compete in|race) (?P<v>.+)"),
    _rule("habit", rf"^I(?:'ve| have) {ADV}been (?P<v>\w+ing\b.+\b(?:for|since)\b.+)"),
    _rule("habit", rf"^I {ADV}used to (?P<v>.+)"),
    _rule("goal", rf"^I {ADV}(?:want|plan|hope|intend|aim|dream|am going|'m going) to (?:become|be) (?P<v>.+)",
          ("user", "goal")),
)


def extract(message: str) -> list[RuleFact]:
    """The facts every matching rule makes from the message, one per clause at most (the first
    rule that fires wins), without repeats."""
    return extract_from(split_clauses(message))


def extract_from(clauses: list[Clause]) -> list[RuleFact]:
    facts: list[RuleFact] = []
    seen: set[str] = set()
    for clause in clauses:
        fact = _first_fact(clause)
        if fact is not None and fact.text.lower() not in seen:
            seen.add(fact.text.lower())
            facts.append(fact)
    return facts


def _first_fact(clause: Clause) -> RuleFact | None:
    for variant in _variants(clause):
        for rule in RULES:
            fact = rule.apply(variant)
            if fact is not None:
                return replace(fact, clause=clause.text)
    return None


def _variants(clause: Clause) -> list[Clause]:
    """The clause, and without a leading adverbial ("In my free time I knit" -> "I knit", "As a
    kid, my dad ..." -> "my dad ...")."""
    match = _LEADING_ADVERBIAL.match(clause.text)
    return [clause, Clause(clause.text[match.end():], clause.act)] if match else [clause]


# Keys of facts phrased in the third person, for facts the model wrote.
_FACT_KEYS: tuple[tuple[LazyPattern, Key | Callable[[re.Match[str]], Key]], ...] = (
    (LazyPattern(r"^the user's (?:first |full |real )?name is\b", re.I), ("user", "name")),
    (LazyPattern(r"^the user (?:prefers to be|likes to be|wants to be|is) called\b", re.I), ("user", "preferred name")),
    (LazyPattern(r"^the user (?:lives|resides|is based|is living) in\b", re.I), ("user", "home city")),
    (LazyPattern(r"^the user (?:moved|has moved|recently moved) to\b", re.I), ("user", "home city")),
    (LazyPattern(r"^the user (?:is|comes) (?:originally )?from\b", re.I), ("user", "hometown")),
    (LazyPattern(r"^the user works as\b", re.I), ("user", "job")),
    (LazyPattern(r"^the user works (?:at|for)\b", re.I), ("user", "employer")),
    (LazyPattern(r"^the user's (?:birthday|date of birth) is\b", re.I), ("user", "birthday")),
    (LazyPattern(r"^the user's time ?zone is\b", re.I), ("user", "time zone")),
    (LazyPattern(r"^the user is \d{1,3} years old\b", re.I), ("user", "age")),
    (LazyPattern(r"^the user(?:'s)? (?:is (?:studying|preparing) for|has) (?:an? |the )?.*\b(?:exam|test)\b", re.I),
     ("user", "exam")),
    (LazyPattern(r"^the user's (?:favou?rite|fave) (?P<what>[\w -]+?) (?:is|are)\b", re.I), _favorite_key),
)


def infer_key(fact: str) -> Key | None:
    """The (subject, attribute) key of a third-person fact, when it has one slot."""
    for pattern, key in _FACT_KEYS:
        match = pattern.search(fact)
        if match:
            return key(match) if callable(key) else key
    return None
