"""An admission: who a request is from and the thread's owner, decided once per request."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NotFound
from ..storage import Storage
from .principal import Principal
from .rules import is_owner, owner_of, owns, same_key


@dataclass(frozen=True)
class Admission:
    """``principal`` let into ``thread``, whose owner (a principal's key, None where nobody began it) was read once.

    Everything after the door takes this: the engine judges an answer's approver rules against this owner instead of
    reading it again.
    """

    thread: str
    principal: Principal
    owner: str | None

    @property
    def is_owner(self) -> bool:
        """The thread's owner themself (a signed link is not)."""
        return is_owner(self.principal, self.owner)

    @property
    def speaks_for_owner(self) -> bool:
        """The owner, or a signed link, which stands for them: sees the whole conversation."""
        return owns(self.principal, self.owner)


def enter(store: Storage, thread: str, owner: str, *, start: bool = False) -> None:
    """Let ``owner`` (a principal's key) into the thread, or raise NotFound.

    With ``start``, a thread nobody has begun becomes theirs (first writer wins).  Another's thread and one that does
    not exist answer the same, so ids cannot be probed.
    """
    stored = owner_of(store, thread)
    if start and (stored is None or same_key(stored, owner)):
        # Owning is also the thread's activity: a prune deciding right now that it is idle either
        # keeps it or, having removed it, sees it claimed afresh, so a turn never lands in a
        # thread pruned (or taken by another) between this check and the turn's commit.
        stored = store.own(thread, owner)
    if stored is None or not same_key(stored, owner):
        raise NotFound("no such thread")
