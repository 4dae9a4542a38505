"""The run store: the records every backend keeps, and the protocols it offers.

The engine owns the rules (when a run may move, what a pause means); a backend
only has to make each commit atomic and conditional.  Every write that can race
is a compare-and-set, and a lost race raises an error that carries the current
record, so callers never read-then-write.
"""

from __future__ import annotations

import dataclasses
import json
from _json import encode_basestring, encode_basestring_ascii, make_encoder
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from .chain import Head, decided_at

RUN_STATUSES = ("running", "waiting", "done", "cancelled", "failed")
FINISHED = frozenset({"done", "cancelled", "failed"})
PAUSE_STATUSES = ("open", "answered", "closed")
JOURNAL_STATUSES = ("started", "done", "failed", "unknown")
DEFAULT_RETENTION = 30 * 24 * 3600.0
"""Seconds a finished thread is kept after its last activity (``settings.retention_days`` in agent.yaml)."""
Position = tuple[float, str]
"""Where a pause stands in the inbox: its ``(created_at, id)``."""
UNANNOUNCED = 60.0
"""Seconds after which an open pause nobody has noted a delivery on is due for one: its request's worker died."""

ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
"""The one encoding every store writes: compact, UTF-8, no NaN; one encoder, since ``json.dumps`` with options
builds a new one for every value."""


def one_pass(encoder: json.JSONEncoder) -> make_encoder:
    """``encoder``'s C encoder (one without indent), made once, called as ``"".join(encode(value, 0))``.

    ``encoder.encode`` makes one for every value (a microsecond each, of some twenty encodes a cycle), to look for a
    value that contains itself as it goes.  This one leaves that to the recursion limit (RecursionError, as for a
    value nested too deeply); ``ENCODER`` tells the two apart where a sentence must (``engine.sizes``).
    """
    strings = encode_basestring_ascii if encoder.ensure_ascii else encode_basestring
    separators = (encoder.key_separator, encoder.item_separator)
    flags = (encoder.sort_keys, encoder.skipkeys, encoder.allow_nan)
    return make_encoder(None, encoder.default, strings, None, *separators, *flags)


ENCODE = one_pass(ENCODER)


def text(value: Any) -> str:
    """``value`` as compact JSON text, exactly as every store writes it."""
    return "".join(ENCODE(value, 0))


SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def parsed(text: str) -> Any:
    """The value JSON ``text`` holds, as ``json.loads`` reads it, with the scanner called directly: ``json.loads``
    looks for a byte order mark and space around the value first, which the stores' text never has (text the
    scanner does not read whole goes to ``json.loads``, which reads it or says why not)."""
    try:
        value, end = SCAN(text, 0)
    except (StopIteration, TypeError):
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


def utf8_size(text: str) -> int:
    """``text``'s length in UTF-8, without encoding it where it is ASCII (which Python knows without looking)."""
    return len(text) if text.isascii() else len(text.encode())


ENCODED = "_encoded"
"""Where a record or event keeps its own encoding once made: the engine measures it, the store then writes it, and
neither encodes it again.  Records are values, never changed in place.  A record's is its row as far as it is made
(``_records.to_row``): a copy that changes a JSON field keeps the others' text, and a field the engine measured
keeps the text it measured (``encoded_as``)."""


Kept = TypeVar("Kept", "RunRecord", "PauseRecord", "JournalEntry")


def _replaced(record: Kept, changes: Mapping[str, Any]) -> Kept:
    """``record`` with ``changes``, as ``dataclasses.replace`` makes it but without calling ``__init__`` again:
    records are copied a dozen times a cycle, and these have no ``__post_init__`` to run."""
    unknown = changes.keys() - _FIELDS[type(record)]
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {', '.join(sorted(unknown))}")
    copy = object.__new__(type(record))
    copy.__dict__.update(record.__dict__)
    copy.__dict__.update(changes)
    row = record.__dict__.get(ENCODED)
    if row is not None:
        changed = JSON_FIELDS[type(record)].intersection(changes)
        kept = row | changes
        for name in changed:
            del kept[name]
        copy.__dict__[ENCODED] = kept
    return copy


def encoded_as(record: Kept, name: str, encoding: str) -> Kept:
    """``record``, keeping ``encoding`` as the text of its JSON field ``name``: the text it was measured by, which
    the store then writes rather than encoding the value again.  ``encoding`` is ``text(getattr(record, name))``."""
    row = record.__dict__.setdefault(ENCODED, {})
    row[name] = encoding
    return record


@dataclass(frozen=True)
class RunRecord:
    """One execution started by a turn.  ``state`` belongs to the engine."""

    id: str
    thread: str
    agent: str
    status: str
    version: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    lease_owner: str | None = None
    lease_until: float | None = None
    created_at: float = 0.0
    updated_at: float = 0.0

    def replace(self, **changes: Any) -> RunRecord:
        return _replaced(self, changes)


@dataclass(frozen=True)
class PauseRecord:
    """A question to a person.  ``payload`` is the pause's public JSON, without the token.

    ``wake_at`` is when the clock next has something to do with the open pause (remind, escalate, expire it: its
    deadline's ``woken``-th event, see ``engine.deadline``); None where nothing remains.  ``closed``: the run moved
    past it unanswered.
    """

    id: str
    run: str
    thread: str
    kind: str
    step: int
    token: str
    payload: dict[str, Any]
    status: str = "open"
    answer: dict[str, Any] | None = None
    created_at: float = 0.0
    delivery: dict[str, Any] | None = None
    wake_at: float | None = None
    woken: int = 0

    def replace(self, **changes: Any) -> PauseRecord:
        return _replaced(self, changes)


@dataclass(frozen=True)
class JournalEntry:
    """One call of a run: written ``started`` before a write runs, then finished."""

    run: str
    key: str
    tool: str
    arguments: Any
    status: str
    result: Any = None
    error: str | None = None
    idempotency_key: str = ""
    attempt: int = 1
    started_at: float = 0.0
    finished_at: float | None = None

    def replace(self, **changes: Any) -> JournalEntry:
        return _replaced(self, changes)


_FIELDS: dict[type, frozenset[str]] = {
    kind: frozenset(spec.name for spec in dataclasses.fields(kind)) for kind in (RunRecord, PauseRecord, JournalEntry)
}
JSON_FIELDS: dict[type, frozenset[str]] = {
    RunRecord: frozenset({"state"}),
    PauseRecord: frozenset({"payload", "answer", "delivery"}),
    JournalEntry: frozenset({"arguments", "result"}),
}
"""The fields a store keeps as JSON text: a copy keeps its record's encoding of those it does not change (a run is
copied at each commit, its state only where a move ends; a journal entry finished keeps its arguments' text)."""


@dataclass(frozen=True)
class ShownMessage:
    """A reply as shown to one session, so only that session may rate it.  ``session`` is a digest, never the id."""

    id: str
    session: str
    thread: str
    text: str
    shown_at: float


@dataclass(frozen=True)
class Feedback:
    """A person's thumb on a reply: the rated message is kept, and nothing else of the conversation."""

    message: str
    text: str
    thumb: str
    rated_at: float


@dataclass(frozen=True)
class Event:
    """A line of a thread's log, written in the same transaction as the change it reports.

    ``decision``: where the change is a decision on a pause, what the thread's decision record keeps of it; the
    commit appends it to the record, chained (``storage.chain``), in the same transaction as the event.
    """

    thread: str
    body: dict[str, Any]
    decision: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        """The body as every store writes it, encoded once (``ENCODED``)."""
        encoded: str | None = self.__dict__.get(ENCODED)
        if encoded is None:
            encoded = self.__dict__[ENCODED] = text(self.body)
        return encoded


Events = Sequence[Event]


@dataclass
class Changes:
    """Writes that take effect together or not at all, each under its own condition.

    Conditions are checked in this order (``_conditions.checks`` is the one place
    that codes it), and the first that fails is raised, carrying the stored
    record, with nothing written:

    - ``begin`` with ``owner``: the run's thread is that owner's, or nobody's and becomes theirs (else NotFound,
      as for a thread that does not exist, so a stranger learns nothing of it);
    - ``begin``: the run's thread has no active run (ThreadBusy), its id is new (VersionConflict);
    - ``claim``: the pause ``(id, answer)`` is open (PauseClosed);
    - ``run`` over ``version``: the stored run is at that version (VersionConflict);
    - ``pauses``: none exists yet (PauseExists);
    - ``starts``: no journal entry has their keys (JournalExists);
    - ``updates`` ``(entry, status, attempt)``: each stored entry is in that status and attempt (JournalConflict).

    ``closes`` (pauses of the saved run, which the run's version condition covers) are closed where still open, so
    nothing the run moved past is listed, announced or woken again.

    ``parties`` are who may answer each new pause besides its thread's owner, by pause id (``approvals.parties``):
    the store lists an open pause under each of them and under its thread's owner (``owner_party``), so
    ``inbox(parties=...)`` finds it; a new pause without an entry here is listed under ``ANYONE``.

    A run begun or saved with a finished status is not (or no longer) its thread's active run.  A begin notes
    its thread's activity (``Upkeep``) and owner in the same transaction, so a prune never removes a thread
    between a check of its owner and its turn.
    """

    begin: RunRecord | None = None
    owner: str | None = None
    claim: tuple[str, dict[str, Any]] | None = None
    run: RunRecord | None = None
    version: int | None = None
    pauses: list[PauseRecord] = field(default_factory=list)
    starts: list[JournalEntry] = field(default_factory=list)
    updates: list[tuple[JournalEntry, str, int | None]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    shown: list[ShownMessage] = field(default_factory=list)
    closes: list[PauseRecord] = field(default_factory=list)
    parties: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        writes = (self.begin, self.claim, self.run, self.pauses, self.starts, self.updates, self.events, self.shown)
        return any(writes) or bool(self.closes)


@dataclass(frozen=True)
class Committed:
    """What a commit stored: the run as saved (if one was), and the ids its events got."""

    run: RunRecord | None
    event_ids: list[int]


@dataclass(frozen=True)
class Snapshot:
    """Everything a replay reads of one run, read together."""

    run: RunRecord
    pauses: list[PauseRecord]
    journal: list[JournalEntry]


@runtime_checkable
class RunStore(Protocol):
    """Runs, their pauses and journals, and each thread's event log: one ``commit`` for every write.

    A commit's ``Changes`` land together or not at all, events included, so the
    log never reports a change that did not happen nor misses one that did.
    The conformance suite in ``tests/storage`` holds every backend to this.
    """

    url: str

    def setup(self) -> None:
        """Create or migrate the schema; safe to call on every start."""

    def close(self) -> None: ...

    def commit(self, changes: Changes) -> Committed:
        """Every change of ``changes``, each under its condition, or none of them (see ``Changes``)."""

    def snapshot(self, run_id: str) -> Snapshot | None:
        """A run with its pauses (by step, then creation) and journal (in started order)."""

    def get_run(self, run_id: str) -> RunRecord | None: ...

    def active_run(self, thread: str) -> RunRecord | None:
        """The thread's unfinished run, if any."""

    def last_run(self, thread: str) -> RunRecord | None:
        """The thread's most recently begun run, finished or not."""

    def get_pause(self, pause_id: str) -> PauseRecord | None: ...

    def run_pauses(self, run_id: str) -> list[PauseRecord]: ...

    def journal(self, run_id: str) -> list[JournalEntry]: ...

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        """A thread's events with ids greater than ``after``, oldest first; ids rise within a thread."""


@runtime_checkable
class SideTables(Protocol):
    """The small tables beside the runs, each written on its own.

    A message is shown through a commit (``Changes.shown``), so it is kept with
    the events that report the reply; here it is only looked up.
    """

    def secret(self, name: str, candidate: str) -> str:
        """The stored secret called ``name``; ``candidate`` is stored first when there is none (first writer wins)."""

    def owner(self, thread: str) -> str | None:
        """Who the thread belongs to (a principal's key), or None for a thread nobody owns."""

    def own(self, thread: str, owner: str) -> str:
        """The thread's owner; ``owner`` becomes it when it has none (first writer wins)."""

    def shown_message(self, message_id: str) -> ShownMessage | None: ...

    def rate_message(self, feedback: Feedback) -> None:
        """Keep a thumb on a message, replacing an earlier thumb on the same message."""

    def feedback(self, message_id: str) -> Feedback | None: ...

    def note_delivery(self, run_id: str, pause_id: str, outcome: dict[str, Any]) -> None:
        """Write on a pause how its announcement to ``on_interrupt`` went (the latest attempt wins)."""

    def claim_wake(self, run_id: str, pause_id: str, woken: int, now: float, until: float) -> bool:
        """Whether the caller may do the open pause's ``woken``-th clock event now, by one conditional write: the
        pause is still at that event and due (``wake_at <= now``), and is then not due again before ``until``, so
        of all workers one does it, and another only once ``until`` passes without it done (its worker died)."""

    def set_wake(self, run_id: str, pause_id: str, woken: int, then: tuple[int, float | None]) -> bool:
        """Move the open pause from its ``woken``-th clock event to ``then`` (the next event and when it is due, or
        the same event later, to try it again); False where it is no longer open or at that event."""

    def claim_delivery(self, run_id: str, pause_id: str, now: float, hold: float) -> bool:
        """Whether the caller may post the pause's announcement now, decided by one conditional write.

        False once a delivery was noted as delivered, and while another caller's claim,
        taken less than ``hold`` seconds before ``now``, stands; so a batch that is
        retried does not post the same delivery twice.
        """


@dataclass(frozen=True)
class Pruned:
    """What one ``prune`` did (or, for a dry run, would do).

    ``threads``: removed whole; ``records``: shown replies and thumbs removed on
    their own for their age; ``kept``: records of threads with an active run kept
    from expiring (where the database expires records itself).
    """

    threads: int = 0
    records: int = 0
    kept: int = 0


@runtime_checkable
class Upkeep(Protocol):
    """What keeps a store bounded, and its runs moving, when no request comes: the sweep's part.

    ``retention`` is given when the store is opened: seconds a thread is kept after
    its last activity.  Nothing waiting is ever removed.  A thread's last activity
    is the time, by ``clock``, of the last commit that wrote on it (a run, pause,
    event or shown reply of it) or of ``own``; ``clock`` is ``time.time`` unless a
    test sets another.
    """

    retention: float
    clock: Callable[[], float]

    def prune(self, now: float, *, dry_run: bool = False) -> Pruned:
        """Remove each thread idle since before ``now - retention`` that has no active run, with all it holds.

        Shown messages and feedback older than that go too.  Where the database
        expires records itself (DynamoDB's TTL), this keeps the records of threads
        that still have an active run from expiring instead.  ``dry_run`` counts
        what would be done, and changes nothing.
        """

    def stale_runs(self, now: float, limit: int = 100) -> list[RunRecord]:
        """Runs still ``running`` whose lease ran out before ``now``: their worker died, and nobody has come since."""

    def due_pauses(self, now: float, limit: int = 100) -> list[PauseRecord]:
        """Open pauses whose ``wake_at`` is at or before ``now``, soonest first, at most ``limit``: read by an index
        of those alone (a store of a million answered pauses reads what is due, never the rest)."""

    def due_deliveries(self, now: float, limit: int = 100) -> list[PauseRecord]:
        """Open pauses whose announcement is due at or before ``now`` (``delivery_due``), read by an index where
        the backend has them; at most ``limit``, the longest due first where the backend can order them."""


def delivery_due(pause: PauseRecord) -> float | None:
    """When the pause's announcement is next due, or None: never once it is answered, delivered or given up.

    A failed delivery is due at its ``next_at`` (at once where it has none); one never noted, ``UNANNOUNCED``
    seconds after the pause opened.  Every backend's ``due_deliveries`` follows this rule.
    """
    if pause.status != "open":
        return None
    if pause.delivery is None:
        return pause.created_at + UNANNOUNCED
    return failed_delivery_due(pause.delivery)


def failed_delivery_due(delivery: dict[str, Any]) -> float | None:
    if delivery.get("delivered") is not False or delivery.get("given_up"):
        return None
    return float(delivery.get("next_at", delivery.get("at", 0.0)))


ANYONE = "anyone"
"""The party every reader reads: a pause whose approvers cannot be named is listed under it."""
MOST_PARTIES = 8
"""Parties one pause is listed under at most, its owner's included: past that, its owner's and ``ANYONE``, so a
commit of a few pauses stays within what one DynamoDB transaction takes."""


def listings(pause: PauseRecord, parties: Mapping[str, tuple[str, ...]]) -> int:
    """How many parties a new pause of a commit is listed under (``Changes.parties``), its owner's included."""
    return min(len(parties.get(pause.id, (ANYONE,))) + 1, MOST_PARTIES)


def owner_party(owner: str | None) -> str:
    """The party of a thread's owner (a principal's key); ``owner:`` alone for a thread nobody owns."""
    return f"owner:{owner or ''}"


@dataclass(frozen=True)
class InboxEntry:
    """An open pause as the inbox lists it, with what deciding who may answer it takes.

    ``run`` is the pause's run, so a reader drops pauses the run has moved past;
    ``owner`` is its thread's owner (a principal's key), None for a thread nobody owns.
    """

    pause: PauseRecord
    run: RunRecord
    owner: str | None


@runtime_checkable
class Inbox(Protocol):
    """Every open pause across threads, for the people who answer them, read by an index and never a scan."""

    def inbox(
        self,
        *,
        before: Position | None = None,
        limit: int = 50,
        kind: str | None = None,
        tool: str | None = None,
        parties: Sequence[str] = (ANYONE,),
    ) -> list[InboxEntry]:
        """Open pauses, newest first by (created_at, id) descending, strictly before `before`, read by an index.

        ``kind`` and ``tool`` (the payload's ``"tool"``, see ``pause_tool``) keep only pauses of that kind and
        tool.  ``parties`` (a reader's, ``approvals.parties.reader_parties``): at least every open pause listed
        under one of them (see ``Changes.parties``); a backend may list more, since the reader decides each pause
        read, and DynamoDB lists no more, so a reader reads what they may answer and not the deployment's whole
        inbox.  A page is short only where no more pauses match: a reader stops at the
        first short page.
        """


def pause_tool(payload: Mapping[str, Any]) -> str | None:
    """The tool a pause is about, as the inbox filters by it: its payload's ``"tool"`` where that is text."""
    tool = payload.get("tool")
    return tool if isinstance(tool, str) else None


@runtime_checkable
class Record(Protocol):
    """The decision record: each thread's decisions, append only and chained, kept apart from what a prune removes.

    A commit appends each event's ``decision`` after the thread's ``head``, one commit at a time per thread, so
    the record's numbers rise without gaps however many workers decide at once.  An entry read back names the
    thread and seq it is stored under, whatever its body says: an entry moved under another key no longer matches
    its digest.
    """

    def record(self, thread: str, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        """The thread's entries numbered after ``after``, in order."""

    def recorded(
        self, since: float = 0.0, after: RecordPosition | None = None, limit: int = 1000
    ) -> list[dict[str, Any]]:
        """Every thread's entries decided at or after ``since`` (seconds since the epoch), by (time, thread, seq),
        strictly after the entry at ``after`` (``record_position``): what an export pages through."""

    def record_head(self, thread: str) -> Head | None:
        """Where the thread's record ends; None for a thread that never had a decision."""

    def record_heads(self, after: str = "", limit: int = 1000) -> list[tuple[str, Head]]:
        """Every thread's head, by thread, strictly after the thread ``after``: the threads a record has, whatever
        its entries say, for a verifier to walk."""


RecordPosition = tuple[float, str, int]
"""An entry's place in the whole record: when it was decided, its thread and seq."""


def record_position(entry: Mapping[str, Any]) -> RecordPosition:
    return (decided_at(entry), str(entry["thread"]), int(entry["seq"]))


@runtime_checkable
class Storage(RunStore, SideTables, Upkeep, Inbox, Record, Protocol):
    """What a backend offers, and what ``open_storage`` returns: the run store and its side tables."""
