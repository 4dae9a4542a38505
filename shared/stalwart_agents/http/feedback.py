"""Thumbs on replies: taken only from the session that was shown the reply, under its own thread.

What a reply showed is remembered with a digest of its session; a thumb keeps
the rated message's text and the thumb, and nothing else of the conversation.
"""

from __future__ import annotations

import hmac

from ..errors import BadRequest, Forbidden
from ..storage.base import Feedback, Storage

THUMBS = ("up", "down")


def rate(store: Storage, thread: str, message: str, thumb: str, session_digest: str, at: float) -> Feedback:
    if thumb not in THUMBS:
        raise BadRequest(f"a thumb is up or down, not {thumb!r}")
    seen = store.shown_message(message)
    if seen is None or seen.thread != thread or not hmac.compare_digest(seen.session.encode(), session_digest.encode()):
        raise Forbidden("a thumb is taken only for a reply of this thread shown to this session")
    feedback = Feedback(message, seen.text, thumb, at)
    store.rate_message(feedback)
    return feedback
