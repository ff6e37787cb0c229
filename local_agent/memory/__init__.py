"""Long-term memory, in three rooms with sessions and the summary beside them.

- `store/`: records on disk and their lifecycle (journal, snapshot, sync with other processes,
  compaction, doctor, export and import, forgetting); `MemoryStore` is its one entry point.
- `index/`: finding records again (embedder, dense and BM25 indexes, hybrid recall) and the
  record's renderings for the prompt and for each index.
- `distill/`: from a user's message to facts worth keeping (gate, rules, checks, the model
  call) and the policy that saves them.
- `sessions/`: each conversation's transcript and the forget epoch; `summary.py`: the rolling
  summary of a session.

Imports flow store -> index and distill -> store; sessions use the store's data dir rules.
Nothing here prints: notices are logged (logger "local_agent") and the CLI shows them.
"""
