"""`memory_search`: what the user's memory store recalls for a query. The store reaches this
package only as a callable, so tools never import memory."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .base import Tool, object_schema, text_property

RecallFunction = Callable[[str, int], Sequence[str]]
"""(query, k) -> the texts of the k closest memories, best first."""

MAX_QUERY_CHARS = 200
DESCRIPTION = "Search what you remember about the user (facts and earlier conversation) for a query."


class MemorySearch:
    def __init__(self, recall: RecallFunction, k: int = 5) -> None:
        self.recall = recall
        self.k = k

    def __call__(self, query: str) -> str:
        texts = [" ".join(text.split()) for text in self.recall(query, self.k)]
        texts = [text for text in texts if text]
        if not texts:
            return "No memory matches this query."
        return "\n".join(f"{rank}. {text}" for rank, text in enumerate(texts, 1))


def make_memory_search(recall: RecallFunction, k: int = 5) -> Tool:
    parameters = object_schema({"query": text_property("what to look for", MAX_QUERY_CHARS)})
    return Tool("memory_search", DESCRIPTION, parameters, MemorySearch(recall, k))
