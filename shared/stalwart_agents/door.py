"""A door: what answers the service's routes.

Two doors stand today: the Desk (our engine over agent.yaml) and the LangGraph door
(a team's graph and its checkpointer).  The HTTP layer (``http/``) declares every
route once, over this protocol, so sign-in, ownership, stream tickets, the inbox and
signed links are the same whichever door a request reaches.

Each request is admitted once (``admit``): who calls, and the thread's owner as
stored, read one time.  Every operation on a thread then takes that admission, so
no route, and no door, reads the owner again or decides twice who may come in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypedDict

from .approvals.admission import Admission
from .approvals.announce import Notify
from .approvals.card import Verdict
from .approvals.inbox import Inbox
from .approvals.principal import Principal
from .engine.answer import Answer
from .engine.pause import Pause
from .engine.reply import CallOutcome, Reply
from .storage import Storage
from .vocabulary import JSON

__all__ = ["Admission", "Described", "Door", "Verdict", "seen_by"]


class Described(TypedDict):
    """What the interface shows before the first turn."""

    agent: str
    description: str
    examples: list[str]


class Door(Protocol):
    """The operations every door offers, each over a thread a request was admitted to."""

    storage: Storage
    clock: Callable[[], float]
    on_interrupt: Notify | None

    def describe(self) -> Described: ...

    def admit(self, thread: str, principal: Principal, *, pause: str | None = None) -> Admission:
        """Let ``principal`` in to read what waits and answer it (NotFound otherwise, as for no thread at all):
        the owner, into the thread the id names for them; anyone a pause there is theirs to answer; with ``pause``,
        anyone who may answer that pause of the thread, open or not, so a late approver is told it was answered,
        not that the thread does not exist.  Ids resolve as ``approvals/admission.py`` says, at every door."""
        ...

    def enter(self, user: str, owner: str, *, start: bool = False) -> str:
        """Let ``owner`` (a principal's key) into their own thread the id names, its stored id, or raise NotFound."""
        ...

    def send(
        self, thread: str, text: str, *, owner: str, session: str | None = None, asker: str | None = None
    ) -> Reply:
        """A turn in the thread the id names for ``owner``: their own, begun now where they have none (for the
        anonymous principal, another's answers NotFound).  ``asker`` is who that is, in words, for the cards of the
        pauses it opens."""
        ...

    def waiting_for(self, admitted: Admission) -> list[Pause]:
        """What waits: all of it for the owner, what they may answer for anyone else.  A read never moves a run."""
        ...

    def answer(self, admitted: Admission, answer: Answer, pause: str, *, session: str | None = None) -> Reply:
        """Answer ``pause``: its token checked in constant time, claimed once, the first answer wins."""
        ...

    def rollback(self, user: str, *, session: str | None = None) -> Reply: ...

    def events(self, user: str, after: int = 0, limit: int = 200) -> list[tuple[int, dict[str, JSON]]]: ...

    def results(self, user: str, run: str) -> dict[str, CallOutcome]:
        """The calls of ``run`` as kept whole, by their key (``3``, ``3.2``): what a reply too large to send whole
        points to.  Empty where ``run`` is not this thread's, or the door keeps no results of its own."""
        ...

    def inbox(
        self,
        principal: Principal,
        *,
        kind: str | None = None,
        tool: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> Inbox: ...

    def may_answer(self, pause: Pause, principal: Principal, owner: str | None) -> bool: ...

    def verdict(self, pause: Pause, reader: Admission | None) -> Verdict:
        """What the rules say of ``pause`` for ``reader`` (None: a channel, whoever the rules let answer)."""
        ...


def seen_by(door: Door, reply: Reply, admitted: Admission) -> Reply:
    """The reply to an answer as its giver sees it: the whole of it for the thread's owner (or a link, which stands
    for them); for an approver in another person's conversation, what became of the call they answered and what
    now waits for them, never the owner's other results or words."""
    if admitted.speaks_for_owner:
        return reply
    step = reply.answered.step if reply.answered is not None else None
    may: Callable[[Pause], bool] = lambda pause: door.may_answer(pause, admitted.principal, admitted.owner)  # noqa: E731
    return reply.seen_by_approver(step, may)
