"""Synthetic memories for the memory measurements: varied records, random vectors, stores."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..types import MemoryRecord, Provenance

if TYPE_CHECKING:
    import numpy as np

    from ..memory.index.state import MemoryState


_NAMES = ("Maria", "Tom", "Aiko", "Priya", "Lars", "Chen", "Fatima", "Diego", "Olga", "Kwame", "Sofia",
          "Ravi", "Emma", "Jonas", "Leila", "Mateo", "Hana", "Samuel", "Ines", "Yusuf", "Noor", "Pavel")
_PLACES = ("Lisbon", "Denver", "Kyoto", "Nairobi", "Oslo", "Toronto", "Seville", "Hanoi", "Melbourne",
           "Krakow", "Lima", "Dublin", "Austin", "Porto", "Tbilisi", "Busan", "Quebec", "Marrakesh",
           "Helsinki", "Cusco", "the lake house", "the office", "the farmers market", "the gym")
_ACTIVITIES = ("hiking", "pottery", "salsa dancing", "rock climbing", "baking sourdough", "learning Japanese",
               "playing chess", "swimming", "painting watercolors", "trail running", "birdwatching", "knitting",
               "surfing", "gardening", "film photography", "playing the cello", "cycling", "yoga",
               "woodworking", "camping", "studying for the CFA exam", "training for a marathon")
_FOODS = ("sushi", "lentil soup", "tacos", "ramen", "paella", "dumplings", "falafel", "pho", "lasagna",
          "green curry", "pierogi", "shakshuka", "banana bread", "ceviche", "bibimbap", "goulash")
_RELATIONS = ("sister", "brother", "coworker", "neighbor", "best friend", "cousin", "manager", "roommate",
              "daughter", "son", "partner", "dentist")
_TIMES = ("yesterday", "last weekend", "on Monday", "this morning", "last summer", "two weeks ago",
          "on my birthday", "after work", "during the holidays", "last night")
_TURN_TEMPLATES = (
    "I went {activity} near {place} with {name} {time}.",
    "My {relation} {name} is moving to {place} next month.",
    "We had {food} for dinner {time} and it was great.",
    "I've been {activity} about {n} times since I moved to {place}.",
    "{name} recommended a {food} place in {place}.",
    "Can you remind me what {name} said about {activity}?",
    "I'm planning a trip to {place} in {n} weeks to try {activity}.",
    "My {relation} hates {food} but loves {activity}.",
    "I spent {n} dollars on gear for {activity} {time}.",
    "Do you think {food} would be good for a party of {n} people?",
)
_FACT_TEMPLATES: tuple[tuple[str, tuple[str, str] | None], ...] = (
    ("The user's favorite food is {food}.", ("user", "favorite food")),
    ("The user lives in {place}.", ("user", "home city")),
    ("The user enjoys {activity}.", None),
    ("The user's {relation} is named {name}.", None),
    ("The user has been {activity} for {n} years.", None),
)

RECALL_QUERIES = (
    "Where did I go hiking last weekend?",
    "What is my favorite food?",
    "Who is moving to Lisbon next month?",
    "What did Maria recommend?",
    "Which city do I live in?",
    "When is my trip to Kyoto?",
    "What does my sister like to do?",
    "Tell me about my pottery classes.",
    "How much did I spend on cycling gear?",
    "What is my cousin's name?",
    "What did we eat for dinner on my birthday?",
    "Am I still training for a marathon?",
    "Who hates ramen?",
    "What should I bring to the party?",
    "What have I been studying lately?",
    "Where does Kwame live?",
)


def synthetic_record(seq: int, rng: random.Random) -> MemoryRecord:
    """One varied memory: mostly chat turns (with session, date and speaker), some keyed facts."""
    words = dict(name=rng.choice(_NAMES), place=rng.choice(_PLACES), activity=rng.choice(_ACTIVITIES),
                 food=rng.choice(_FOODS), relation=rng.choice(_RELATIONS), time=rng.choice(_TIMES),
                 n=rng.randint(2, 40))
    created = 1.7e9 + seq * 600.0
    if rng.random() < 0.25:
        template, key = rng.choice(_FACT_TEMPLATES)
        return MemoryRecord(id=f"syn{seq:07d}", kind="fact", text=template.format(**words), key=key,
                            created=created, updated=created)
    provenance = Provenance(session=f"synthetic-{seq // 20}", turn_index=seq % 20 * 2, role="user",
                            date=dt.date.fromtimestamp(created).isoformat())
    return MemoryRecord(id=f"syn{seq:07d}", kind="turn", text=rng.choice(_TURN_TEMPLATES).format(**words),
                        provenance=provenance, created=created, updated=created)


def unit_vectors(count: int, dimension: int, seed: int = 0) -> np.ndarray:
    """Random L2-normalized float32 vectors: a flat inner-product search costs the same
    whatever the vectors hold, and embedding 100k texts would take minutes here."""
    import numpy as np

    vectors = np.random.default_rng(seed).standard_normal((count, dimension), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def synthetic_state(count: int, dimension: int, seed: int = 0) -> MemoryState:
    """The store's own in-memory state (FAISS + BM25 indexes) over `count` synthetic memories."""
    from ..memory.index.state import MemoryState

    rng = random.Random(seed)
    records = [synthetic_record(seq, rng) for seq in range(count)]
    return MemoryState.build(records, unit_vectors(count, dimension, seed), count, dimension)


def write_synthetic_store(data_dir: Path, count: int, embedder: Any) -> None:
    """A memory store on disk in `data_dir` holding `count` synthetic memories, written by the
    store's own compaction code, so that MemoryStore.open reads it as any user's store."""
    from ..memory.index.render import embedding_id
    from ..memory.store.compaction import write_generation
    from ..memory.store.datadir import claim_data_dir
    from ..memory.store.layout import StorePaths

    paths = StorePaths.for_data_dir(claim_data_dir(data_dir))  # marked as ours before any file
    paths.create()
    state = synthetic_state(count, embedder.dimension)
    write_generation(paths, state, 1, embedding_id(embedder.model_id))
