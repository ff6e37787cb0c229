"""The index room: what finds a memory again.

The sentence embedder, the dense (FAISS) and lexical (BM25) indexes, the in-memory state that
holds records with both (state.py), hybrid recall over it, and the record's renderings: the
text each index sees and the line the prompt shows (render.py).
"""
