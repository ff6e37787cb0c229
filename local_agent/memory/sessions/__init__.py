"""The sessions room: each conversation's transcript and rolling summary in its own file, the
forget epoch every session write checks, and taking a forgotten message out of transcripts."""

from __future__ import annotations

from .format import SESSION_FORMAT_VERSION, validate_session_name
from .session import Session, SessionStore, Turn

__all__ = ["SESSION_FORMAT_VERSION", "Session", "SessionStore", "Turn", "validate_session_name"]
