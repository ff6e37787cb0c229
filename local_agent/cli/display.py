"""Stored text on the terminal: control characters shown as escapes, never sent raw.

A memory's text comes from what was said, imported or read from a file; printed raw, an escape
sequence in it could clear the screen, retitle the window or hide the text after it, a newline
could pass for another memory, and a direction override could reverse what follows. Each such
character is shown the way Python's repr writes it (ESC as \\x1b). --json output stays exact.
"""

from __future__ import annotations

import unicodedata

# Bidirectional controls (Cf) that reorder the text around them; other format characters,
# such as the joiners inside emoji, are left alone.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
ESCAPED_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})  # C0, DEL, C1; line and paragraph separators


def printable(text: str) -> str:
    """`text` with every control character written as an escape."""
    if text.isprintable():
        return text  # the common case, at C speed
    return "".join(_escaped(ch) for ch in text)


def _escaped(ch: str) -> str:
    if ch in BIDI_CONTROLS or unicodedata.category(ch) in ESCAPED_CATEGORIES:
        return repr(ch)[1:-1]
    return ch
