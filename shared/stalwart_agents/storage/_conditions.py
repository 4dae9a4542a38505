"""A commit's conditions, in the one order every backend decides them.

``checks`` turns ``Changes`` into its conditions in the order ``Changes`` lists
them; each says what is raised, carrying the stored record, when it does not
hold.  A backend that writes step by step inside a transaction (SQL, memory)
inherits ``Transactional``, which walks the checks, asks the backend for one
conditional primitive each, and raises the first refused.  Every check's write
is asked about once the walk has sent the rest (a begin's hold, the run's save
with the thread it is stored under, each insert and update), and so is where a
thread's decision record ends, so a backend that sends statements together
(Postgres's pipeline) learns every outcome in one round trip.  DynamoDB decides
them all in one request, and raises the first refused in the same order.
"""

from __future__ import annotations

import hmac
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from .. import telemetry
from ..errors import (
    JournalConflict,
    JournalExists,
    NotFound,
    PauseClosed,
    PauseExists,
    StalwartError,
    ThreadBusy,
    VersionConflict,
)
from . import _records as records
from ._records import Row
from .base import FINISHED, Changes, Committed, JournalEntry, PauseRecord, RunRecord, ShownMessage
from .chain import Head, head_after, linked

Tx = TypeVar("Tx")


@dataclass(frozen=True)
class ThreadFree:
    """``begin``: the run's thread is ``owner``'s (where given: or nobody's, and becomes theirs), then has no
    active run."""

    run: Row
    owner: str | None = None

    @property
    def thread(self) -> str:
        return str(self.run["thread"])

    def owned_by(self, stored: str) -> bool:
        """Whether ``stored`` is ``owner``, compared in constant time: an owner's key is never guessed by timing."""
        return self.owner is None or hmac.compare_digest(stored.encode(), self.owner.encode())

    def not_theirs(self) -> NotFound:
        """Another's thread answers as one that does not exist, so its id cannot be probed."""
        return NotFound("no such thread")

    def refused(self, active_run: str) -> ThreadBusy:
        return ThreadBusy(f"thread {self.thread} already has an active run, {active_run}", active_run=active_run)


class Locked(NamedTuple):
    """What a begin finds of its thread once it holds it: its active run and its owner, where it has them."""

    active_run: str | None
    owner: str | None


@dataclass(frozen=True)
class RunNew:
    """``begin``: no run has the id; the run becomes its thread's last run, and its active one unless finished."""

    run: Row

    @property
    def active(self) -> bool:
        return self.run["status"] not in FINISHED

    def refused(self, current: RunRecord | None) -> VersionConflict:
        return VersionConflict(f"run {self.run['id']} already exists", current)


@dataclass(frozen=True)
class PauseOpen:
    """``claim``: the pause is open; it is answered with ``answer`` (JSON text)."""

    pause_id: str
    answer: str

    def refused(self, current: PauseRecord | None) -> PauseClosed:
        state = "does not exist" if current is None else f"is already {current.status}"
        return PauseClosed(f"pause {self.pause_id} {state}", current)


@dataclass(frozen=True)
class RunAt:
    """``run``: the stored run is at ``version``; it is saved at the next, on the thread it is stored under.

    A run saved with a finished status is no longer its thread's active run.
    """

    run: Row
    version: int

    @property
    def finishes(self) -> bool:
        return self.run["status"] in FINISHED

    def refused(self, current: RunRecord | None) -> VersionConflict:
        state = "does not exist" if current is None else f"is at version {current.version}, not {self.version}"
        return VersionConflict(f"run {self.run['id']} {state}", current)


@dataclass(frozen=True)
class PauseNew:
    """``pauses``: no pause has the id.  ``record`` is the pause ``pause`` is the row of: a backend that keeps a row
    in a form of its own (``_packed``) makes it from the record's values, rather than decode the row's JSON."""

    pause: Row
    record: PauseRecord

    def refused(self, current: PauseRecord | None) -> PauseExists:
        return PauseExists(f"pause {self.pause['id']} already exists", current)


@dataclass(frozen=True)
class EntryNew:
    """``starts``: the run has no journal entry with the key; ``record`` is the entry, as for ``PauseNew``."""

    entry: Row
    record: JournalEntry

    def refused(self, current: JournalEntry | None) -> JournalExists:
        return JournalExists(f"run {self.entry['run']} already has a journal entry {self.entry['key']!r}", current)


@dataclass(frozen=True)
class EntryAt:
    """``updates``: the stored entry is in ``status`` (and at ``attempt``, where given); ``entry`` replaces it.
    ``record`` is the entry, as for ``PauseNew``."""

    entry: Row
    status: str
    attempt: int | None
    record: JournalEntry

    def holds_for(self, stored: Mapping[str, Any] | None) -> bool:
        return stored is not None and stored["status"] == self.status and self.attempt in (None, stored["attempt"])

    def refused(self, current: JournalEntry | None) -> JournalConflict:
        run, key = self.entry["run"], self.entry["key"]
        if current is None:
            return JournalConflict(f"run {run} has no journal entry {key!r}", None)
        return JournalConflict(f"journal entry {key!r} of run {run} is {current.status}, not {self.status}", current)


Check = ThreadFree | RunNew | PauseOpen | RunAt | PauseNew | EntryNew | EntryAt


class Taken(Protocol):
    """Whether a conditional write took effect: a bool, or, where a backend sends statements together (Postgres's
    pipeline), what learns it with the next result the commit reads, so the write costs no round trip of its own."""

    def __bool__(self) -> bool: ...


class Begun:
    """Whether the thread ``check`` begins a run on was its owner's (or nobody's, and became theirs) and had no active
    run: learnt once the commit asks, from what the backend's hold on the thread (``locked``) and, where the thread
    had no owner, its write of one (``owned``) returned."""

    def __init__(self, check: ThreadFree, locked: Callable[[], Locked], owned: Callable[[], str] | None) -> None:
        self.check, self._locked, self._owned = check, locked, owned

    def refusal(self) -> StalwartError | None:
        locked = self._locked()
        if self._owned is not None:
            stored = locked.owner if locked.owner is not None else self._owned()
            if not self.check.owned_by(stored):
                return self.check.not_theirs()
        return None if locked.active_run is None else self.check.refused(locked.active_run)

    def __bool__(self) -> bool:
        return self.refusal() is None


class Saved:
    """Whether the run ``check`` saves was at its version, and the thread it is stored under: learnt once the commit
    asks, as a ``Taken`` learns its outcome (``stored_on`` reads what the backend's save returned)."""

    def __init__(self, check: RunAt, stored_on: Callable[[], str | None]) -> None:
        self.check, self.thread = check, stored_on

    def __bool__(self) -> bool:
        return self.thread() is not None


def checks(changes: Changes, rows: records.Rows) -> Iterator[Check]:
    """The conditions of a commit in the order they are decided: the first refused is the one raised."""
    if rows.begin is not None:
        yield ThreadFree(rows.begin, changes.owner)
        yield RunNew(rows.begin)
    if changes.claim is not None and rows.claim is not None:
        yield PauseOpen(changes.claim[0], rows.claim)
    if rows.run is not None:
        yield RunAt(rows.run, rows.version)
    yield from map(PauseNew, rows.pauses, changes.pauses)
    yield from map(EntryNew, rows.starts, changes.starts)
    for row, (entry, status, attempt) in zip(rows.updates, changes.updates, strict=True):
        yield EntryAt(row, status, attempt, entry)


def written_on(changes: Changes, saved_on: str | None) -> list[str]:
    """The threads a commit writes on, in one order (so two commits lock them alike); ``saved_on``: the saved run's."""
    threads = {event.thread for event in changes.events} | {message.thread for message in changes.shown}
    threads |= {pause.thread for pause in changes.pauses}
    threads |= {thread for thread in (saved_on, changes.begin and changes.begin.thread) if thread}
    return sorted(threads)


class Transactional(ABC, Generic[Tx]):
    """``commit`` for a backend that writes step by step inside one transaction.

    The walk, and what a refused check raises, live here; a backend gives the
    transaction, one conditional write per kind of check that says whether it
    took effect, and a read of what is stored.  Each thread written on is
    touched, which is how ``prune`` knows its last activity: a begun thread and
    a freed one by the write that locks or frees it, every other one after the
    checks.  Events and shown messages, which have no condition, come last.
    """

    clock: Callable[[], float]

    url: str

    def commit(self, changes: Changes) -> Committed:
        with telemetry.current().commit(self.url):
            return self._commit(changes)

    def _commit(self, changes: Changes) -> Committed:
        rows = records.encoded(changes)
        saved: Saved | None = None
        at, touched = self.clock(), set[str]()
        pending: list[tuple[Check, Taken]] = []
        with self._committing() as tx:
            for check in checks(changes, rows):
                if (decided := self._decide(tx, check, at, touched, pending)) is not None:
                    saved = decided
            self._close(tx, rows.closes)
            # Every thread written on is touched before its events are appended, and before its decision record's
            # head is read: where the touch locks the thread's row (Postgres), a thread's events and decisions are
            # appended one commit at a time, so their ids rise as readers see them and its record never forks.  A
            # commit that appends decisions touches its threads before it is settled, so the heads are asked for
            # with its writes; any other once a saved run's thread is known as stored (and freed, where it finished).
            recorded_on = [event.thread for event in changes.events if event.decision is not None]
            if recorded_on:
                self._touch_all(tx, written_on(changes, None), at, touched)
            heads = {thread: self._head(tx, thread) for thread in dict.fromkeys(recorded_on)}
            # Settled before the writes a backend may not take back (memory's log), so nothing of a refused commit
            # is appended anywhere.
            self._settle(tx, pending)
            thread = self._stored_on(tx, saved, at, touched) if saved is not None else None
            self._touch_all(tx, written_on(changes, thread), at, touched)
            appended = self._append(tx, rows.events)
            self._record_decisions(tx, changes, heads)
            self._show(tx, changes.shown)
        return Committed(rows.committed_run(thread), appended())

    def _touch_all(self, tx: Tx, threads: list[str], at: float, touched: set[str]) -> None:
        for thread in threads:
            if thread not in touched:
                self._touch(tx, thread, at)
                touched.add(thread)

    def _record_decisions(self, tx: Tx, changes: Changes, heads: Mapping[str, Callable[[], Head | None]]) -> None:
        """Append each event's decision to its thread's record, after the head ``heads`` asked for: each asked for
        once its thread was touched (no other commit appends to it until ``tx`` ends), with the commit's writes."""
        after: dict[str, Head] = {}
        for event in changes.events:
            if event.decision is None:
                continue
            head = after.get(event.thread) or heads[event.thread]() or Head()
            entry = linked(event.thread, event.decision, head)
            self._append_decision(tx, entry)
            after[event.thread] = head_after(entry)

    def _decide(
        self, tx: Tx, check: Check, at: float, touched: set[str], pending: list[tuple[Check, Taken]]
    ) -> Saved | None:
        """Make the check's write, or raise its refusal; a saved run's ``Saved``.  A thread the write noted ``at`` on
        as its last activity is added to ``touched``.  A write the walk need not wait on is added to ``pending``, and
        settled before the commit ends, in the order of the checks."""
        match check:
            case ThreadFree():
                locked = self._lock_thread(tx, check.thread, at)
                touched.add(check.thread)
                # Written before the owner is read: it takes effect only where the thread has none.
                owned = None if check.owner is None else self._own(tx, check.thread, check.owner)
                pending.append((check, Begun(check, locked, owned)))
            case RunAt():
                saved = Saved(check, self._save_run(tx, check))
                pending.append((check, saved))
                return saved
            case RunNew():
                pending.append((check, self._insert_run(tx, check)))
            case PauseOpen():
                pending.append((check, self._answer_pause(tx, check)))
            case PauseNew() | EntryNew():
                pending.append((check, self._insert(tx, check)))
            case EntryAt():
                pending.append((check, self._update_entry(tx, check)))
        return None

    def _stored_on(self, tx: Tx, saved: Saved, at: float, touched: set[str]) -> str:
        """The thread the run the commit saved is stored under, freed (and touched ``at``) where the run finished."""
        thread = saved.thread()
        assert thread is not None, "a commit whose save was refused has raised"
        if saved.check.finishes:
            self._free_thread(tx, thread, saved.check.run["id"], at)
            touched.add(thread)
        return thread

    def _settle(self, tx: Tx, pending: list[tuple[Check, Taken]]) -> None:
        """Raise the refusal of the first pending write that did not take effect, carrying the record stored; a
        refused commit writes nothing, so what was sent after it is rolled back with it."""
        for check, taken in pending:
            if not taken:
                raise self._refusal(tx, check, taken)
        pending.clear()

    def _refusal(self, tx: Tx, check: Check, taken: Taken) -> StalwartError:
        match check:
            case ThreadFree():
                refusal = taken.refusal() if isinstance(taken, Begun) else None
                assert refusal is not None, "a begin's refusal is its own"
                return refusal
            case RunNew() | RunAt():
                return check.refused(self._stored(tx, RunRecord, check.run))
            case PauseOpen():
                return check.refused(self._stored(tx, PauseRecord, {"id": check.pause_id}))
            case PauseNew():
                return check.refused(self._stored(tx, PauseRecord, check.pause))
            case EntryNew() | EntryAt():
                return check.refused(self._stored(tx, JournalEntry, check.entry))

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[Tx]:
        """One write transaction, committed when the block ends and rolled back if it raises."""

    def _committing(self) -> AbstractContextManager[Tx]:
        """The transaction a commit writes in: ``_transaction``, unless the backend can send the statements whose
        results the walk does not read together with the next one that it does."""
        return self._transaction()

    @abstractmethod
    def _lock_thread(self, tx: Tx, thread: str, at: float) -> Callable[[], Locked]:
        """What gives the thread's active run and owner as they were when it was held, noting ``at`` as its last
        activity (giving it a row of its own if it has none); no other begin on the thread passes until ``tx``
        ends."""

    @abstractmethod
    def _own(self, tx: Tx, thread: str, owner: str) -> Callable[[], str]:
        """Give the thread ``owner`` where it has none; what gives its owner then: ``owner``, unless another commit
        gave it one first."""

    @abstractmethod
    def _insert_run(self, tx: Tx, check: RunNew) -> Taken:
        """Insert the run as its thread's last (and, if ``check.active``, active) run; False if its id is taken."""

    @abstractmethod
    def _answer_pause(self, tx: Tx, check: PauseOpen) -> Taken:
        """Answer the pause if it is open; False if it is not (or does not exist)."""

    @abstractmethod
    def _save_run(self, tx: Tx, check: RunAt) -> Callable[[], str | None]:
        """Save the run if it is at ``check.version``, keeping the thread it is stored under; what gives that thread
        once the commit asks, None where the run was not at the version (a backend that sends statements together
        learns it with the next result the commit reads)."""

    @abstractmethod
    def _free_thread(self, tx: Tx, thread: str, run: str, at: float) -> None:
        """``run`` finished: it is no longer ``thread``'s active run (it is its last), and ``at`` is noted as the
        thread's last activity."""

    @abstractmethod
    def _insert(self, tx: Tx, check: PauseNew | EntryNew) -> Taken:
        """Insert a pause, or a journal entry (after its run's others); False if its key is taken."""

    @abstractmethod
    def _close(self, tx: Tx, pauses: list[str]) -> None:
        """Close each of ``pauses`` that is still open: it is no longer listed, announced or woken."""

    @abstractmethod
    def _update_entry(self, tx: Tx, check: EntryAt) -> Taken:
        """Replace the entry if ``check.holds_for`` it; False if not (or it does not exist)."""

    @abstractmethod
    def _stored(self, tx: Tx, kind: type[records.Record], key: Mapping[str, Any]) -> records.Record | None:
        """The record of ``kind`` stored under the key in ``key`` (a row, or just its key), read inside ``tx``."""

    @abstractmethod
    def _append(self, tx: Tx, events: list[tuple[str, str]]) -> Callable[[], list[int]]:
        """Append ``(thread, body)`` events, each thread of them touched already in ``tx``; what gives their ids,
        rising within each thread in the order given, once the transaction has ended (a backend that sends
        statements together learns them with its COMMIT's result)."""

    @abstractmethod
    def _head(self, tx: Tx, thread: str) -> Callable[[], Head | None]:
        """What gives where the thread's decision record ends, as ``tx`` reads it (a backend that sends statements
        together learns it with the next result the commit reads)."""

    @abstractmethod
    def _append_decision(self, tx: Tx, entry: dict[str, Any]) -> None:
        """Append a linked entry to its thread's record and make it the thread's head."""

    @abstractmethod
    def _show(self, tx: Tx, messages: list[ShownMessage]) -> None:
        """Remember each message as shown, unless one with its id already is."""

    @abstractmethod
    def _touch(self, tx: Tx, thread: str, at: float) -> None:
        """Note ``at`` as the thread's last activity, giving it a row of its own if it has none."""
