"""The inbox: every open pause a person may answer, across threads, newest first.

The store reads open pauses from an index, newest first, those listed under one of
the person's parties (``parties``); which of them a person may answer is the
approver rules' to say (``Desk.may_answer``), so a page is filled from as many
index pages as it takes, up to ``READ_AT_MOST`` pauses read per request.  The
cursor is where the reading stopped, so a person who may answer little of a large
inbox gets short pages quickly rather than one slow one; it is sealed for the
person it was given to (``cursor.py``), so it shows them nothing of the pause it
stopped at.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..engine.move import waiting_pauses
from ..engine.pause import Pause
from ..engine.state import RunState
from ..errors import BadRequest
from ..storage import InboxEntry, Storage
from ..vocabulary import CONTROL_CHARACTERS
from .cursor import seal, unseal
from .parties import reader_parties
from .principal import ANONYMOUS, Principal

MAX_LIMIT = 200
NAME_MAX = 200
_TEXT = f"[^{CONTROL_CHARACTERS}]"
TOOL_PATTERN = f"^{_TEXT}{{1,{NAME_MAX}}}$"
_NAME = re.compile(f"[^{CONTROL_CHARACTERS}\ud800-\udfff]{{1,{NAME_MAX}}}")
READ_AT_MOST = 1000
"""Open pauses read from the index for one request, whatever the person may answer of them."""

MayAnswer = Callable[[Pause, Principal, str | None, str], bool]
"""(pause, principal, the thread's owner, the run's agent): ``Desk.may_answer``."""
Position = tuple[float, str]


@dataclass(frozen=True)
class Inbox:
    """One page of the inbox: the pauses (each with its run's turn as ``turn``), and the cursor of the next, if any."""

    waiting: list[Pause]
    next: str | None
    owners: dict[str, str] = field(default_factory=dict, compare=False)
    """Each pause's thread owner (a principal's key), by pause id: who reads it as the person who asked."""

    def to_dict(self) -> dict[str, object]:
        return {
            "waiting": [pause.to_dict() for pause in self.waiting],
            "next": self.next,
            "not_notified": not_notified(self.waiting),
        }


def not_notified(pauses: list[Pause]) -> list[dict[str, object]]:
    """The pauses whose latest announcement failed, with its error: what the team's channel has not been told."""
    return [
        {"interrupt": p.id, "error": p.delivery.get("error")}
        for p in pauses
        if p.delivery and not p.delivery["delivered"]
    ]


def read_inbox(
    storage: Storage,
    may_answer: MayAnswer,
    principal: Principal,
    *,
    kind: str | None = None,
    tool: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
    shown: Callable[[InboxEntry], Pause | None] | None = None,
) -> Inbox:
    """The page of open pauses ``principal`` may answer after ``cursor``, filtered by ``kind`` and ``tool``;
    ``shown`` is how a door shows an entry (None where its run moved past it), ``answerable`` for the engine's runs."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise BadRequest(f"limit is a whole number from 1 to {MAX_LIMIT}")
    if tool is not None and not _name(tool):
        raise BadRequest("tool names a tool: at most 200 printable characters")
    before, seen, parties = position(cursor, storage, principal), 0, reader_parties(principal)
    found: list[Pause] = []
    owners: dict[str, str] = {}
    while seen < READ_AT_MOST:
        asked = min(READ_AT_MOST - seen, max(limit - len(found), 50))
        page = storage.inbox(before=before, limit=asked, kind=kind, tool=tool, parties=parties)
        for entry in page:
            seen += 1
            before = (entry.pause.created_at, entry.pause.id)
            pause = (shown or answerable)(entry)
            owner = entry.owner or ANONYMOUS.key
            if pause is not None and may_answer(pause, principal, owner, entry.run.agent):
                found.append(pause)
                owners[pause.id] = owner
                if len(found) == limit:
                    return Inbox(found, cursor_of(before, storage, principal), owners)
        if len(page) < asked:
            return Inbox(found, None, owners)
    return Inbox(found, cursor_of(before, storage, principal) if before is not None else None, owners)


def answerable(entry: InboxEntry) -> Pause | None:
    """The pause as the inbox shows it, with its run's turn; None where the run has moved past it."""
    shown = waiting_pauses(entry.run, [entry.pause])
    if not shown:
        return None
    turn = RunState.of(entry.run).turn
    return replace(shown[0], turn=turn) if turn is not None else shown[0]


def cursor_of(at: Position, storage: Storage, reader: Principal) -> str:
    """Where the page ended, exactly, sealed for ``reader`` alone: they read on from it, and learn nothing of it."""
    return seal(storage, reader.key, at)


def position(cursor: str | None, storage: Storage, reader: Principal) -> Position | None:
    """Where a cursor says to read on from; BadRequest for anything not a cursor the inbox gave ``reader``."""
    if cursor is None or cursor == "":
        return None
    at = unseal(storage, reader.key, cursor)
    if not _name(at[1]):
        raise BadRequest("this cursor is not one the inbox gave you; start again without it")
    return at


def _name(text: object) -> bool:
    """Text a store can be asked for: no control character or lone surrogate."""
    return isinstance(text, str) and _NAME.fullmatch(text) is not None
