"""Reading the user's message once: words, clauses, language, numbers, dates, names and the
intents the program recognizes, each with the span it came from (`read`). Every other part of
the program takes the `Reading` instead of reading the text again. This room depends on
nothing above it: config, types and errors, and its own word lists (words.toml)."""

from .read import Intent, IntentKind, Reading, read

__all__ = ["Intent", "IntentKind", "Reading", "read"]
