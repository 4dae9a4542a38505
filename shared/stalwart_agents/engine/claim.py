"""The answer rule every door follows: the token shown, one claim that wins, retried while the run moves.

The Desk's engine and the LangGraph door both take an answer through here, so a
wrong token, a pause already answered and a run that keeps moving mean the same
code, and the same words, whichever door took them.  The clock is the door's own.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import TypeVar

from ..errors import InterruptStale, PauseClosed, RunBusy, VersionConflict
from .answer import Answer
from .pause import Pause

CLAIM_ATTEMPTS = 8
"""How often an answer is tried against a run that moved meanwhile before the person is asked to try again."""
ANSWERED = "this pause was already answered"

Taken = TypeVar("Taken")


def check_token(answer: Answer, pause: Pause) -> None:
    """InterruptStale unless the answer carries the token shown with the pause (compared in constant time);
    an in-process caller that carries none is trusted as the application that let its person in."""
    if answer.token is not None and not hmac.compare_digest(answer.token.encode(), pause.token.encode()):
        raise InterruptStale("this answer carries a token other than the one shown; read what waits again")


def claimed_once(attempt: Callable[[], Taken]) -> Taken:
    """``attempt()`` until one commit takes the answer: a run that moved meanwhile (VersionConflict) is read and
    tried again; a pause another answer claimed first (PauseClosed) is stale."""
    for _ in range(CLAIM_ATTEMPTS):
        try:
            return attempt()
        except PauseClosed as exc:
            raise InterruptStale(ANSWERED) from exc
        except VersionConflict:
            continue
    raise RunBusy("the run kept changing while this answer was taken; try again")
