"""An admission: who a request is from and the thread's owner, decided once per request.

A thread is found by its owner and its id together, so each person has their own ``u-17``: the thread a signed-in
person begins under an id is stored under that id scoped to them (``scoped``), and nobody else reaches it by the id
they typed.  Every door resolves an id the same way (``resolve``):

1. the person's own scoped thread of that id, where it exists;
2. the id itself as a stored id, where the person owns it (a thread begun before ids were scoped, or the full id a
   pause, the inbox or a webhook showed them);
3. for a turn, the person's own scoped thread, begun now;
4. the id itself as a stored id the person may come into as an approver (the door decides: ``admit``);
5. otherwise NotFound, the same as for no thread at all.

So a turn on someone else's id begins the caller's own thread, as a turn on an unused one does: whether an id is
taken cannot be probed, nor an id squatted.  The anonymous principal (a service without sign-in, a Desk called
from Python) has unscoped ids, exactly as before.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import BadRequest, NotFound
from ..storage import Storage
from ..storage.keys import THREAD_SCOPE, keys_of
from .principal import ANONYMOUS, Principal
from .rules import is_owner, owner_of, owns, same_key

THREAD_MAX = 200
"""The longest id a client may begin a thread under."""
SCOPE_BYTES = 16
SCOPE_LENGTH = len(base64.urlsafe_b64encode(bytes(SCOPE_BYTES)).rstrip(b"=")) + 1
"""What scoping adds to an id: a tag of 22 characters and a colon."""
STORED_THREAD_MAX = THREAD_MAX + SCOPE_LENGTH
"""The longest id a thread may be stored (and so reached) under."""

OwnerOf = Callable[[Storage, str], str | None]
"""How a door reads a thread's owner (``rules.owner_of``, unless the door knows threads begun outside it)."""
MayComeIn = Callable[[str, str], bool]
"""(a stored thread, its owner's key): whether the caller may come in to answer something there (step 4)."""


@dataclass(frozen=True)
class Admission:
    """``principal`` let into ``thread``, whose owner (a principal's key, None where nobody began it) was read once.

    ``thread`` is the stored id the request's id resolved to.  Everything after the door takes this: the engine
    judges an answer's approver rules against this owner instead of reading it again.
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


@dataclass(frozen=True)
class Resolved:
    """Where an id led: the stored thread, its owner as read (None where nobody began it), and whether it is the
    caller's own (steps 1 to 3); where not, it is the id itself, for the door to judge as an approver's (step 4)."""

    thread: str
    owner: str | None
    own: bool


def scoped(store: Storage, thread: str, who: str) -> str:
    """The id ``who`` (a principal's key) keeps its own thread ``thread`` under: ``<tag>:<thread>``, the tag a keyed
    digest of their key and the id that says nothing of who they are; the anonymous principal's ids are unscoped."""
    if who == ANONYMOUS.key:
        return thread
    # Keyed by the id too, not the person alone: a tag one stored id shows (to an approver, a webhook's receiver)
    # neither links the person's other threads nor gives away the stored id of another name they use.
    tag = keys_of(store).digest(THREAD_SCOPE, f"{who}\0{thread}")[:SCOPE_BYTES]
    return f"{base64.urlsafe_b64encode(tag).decode().rstrip('=')}:{thread}"


def resolve(
    store: Storage,
    thread: str,
    who: str,
    *,
    start: bool = False,
    pause: str | None = None,
    read_owner: OwnerOf = owner_of,
) -> Resolved:
    """Steps 1 to 3 for ``who`` (a principal's key) and the id ``thread``.  ``pause``, an answer's, skips step 1
    where that pause is of the stored thread ``thread`` itself, so its id finds it whatever the caller owns."""
    own = scoped(store, thread, who)
    if own != thread:
        owner = read_owner(store, own)
        # the pause is read only where the caller has a thread of their own under this id to skip
        if owner is not None and same_key(owner, who) and not _pause_of(store, pause, thread):
            return Resolved(own, owner, True)
    owner = read_owner(store, thread)
    if owner is not None and same_key(owner, who):
        return Resolved(thread, owner, True)
    if start:
        if len(thread) > THREAD_MAX:
            raise BadRequest(f"a new thread's id is at most {THREAD_MAX} characters")
        return Resolved(own, owner if own == thread else None, True)
    return Resolved(thread, owner, False)


def admit(
    store: Storage,
    thread: str,
    principal: Principal,
    may_come_in: MayComeIn | None,
    *,
    pause: str | None = None,
    read_owner: OwnerOf = owner_of,
) -> Admission:
    """``principal`` let into the thread the id ``thread`` names for them, or NotFound: their own (steps 1 and 2),
    else the id as stored where ``may_come_in`` says a pause there is theirs to answer (step 4)."""
    found = resolve(store, thread, principal.key, pause=pause, read_owner=read_owner)
    if found.own or (found.owner is not None and may_come_in is not None and may_come_in(found.thread, found.owner)):
        return Admission(found.thread, principal, found.owner)
    raise NotFound("no such thread")


def enter(store: Storage, thread: str, owner: str, *, start: bool = False) -> str:
    """The stored thread the id names for ``owner`` (a principal's key), theirs, or NotFound.

    With ``start``, a thread nobody has begun becomes theirs.  Another's thread and one that does not exist answer
    the same, so ids cannot be probed; and with ``start`` another's id begins the caller's own thread.
    """
    found = resolve(store, thread, owner, start=start)
    stored = found.owner if found.own else None
    if start and found.own:
        # Owning is also the thread's activity: a prune deciding right now that it is idle either
        # keeps it or, having removed it, sees it claimed afresh, so a turn never lands in a
        # thread pruned (or taken by another) between this check and the turn's commit.
        stored = store.own(found.thread, owner)
    if stored is None or not same_key(stored, owner):
        raise NotFound("no such thread")
    return found.thread


def _pause_of(store: Storage, pause: str | None, thread: str) -> bool:
    """Whether ``pause`` is a stored pause of the stored thread ``thread``."""
    stored = store.get_pause(pause) if pause is not None else None
    return stored is not None and stored.thread == thread
