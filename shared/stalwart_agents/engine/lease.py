"""A worker's hold on a run, and the writes it stages while it moves the run.

Writes are staged and committed together where they must be durable: before a
write tool runs (its journal entry, ``started``) and when the move ends.  So a
pausing turn is one commit, and an approval that runs a write is two.  The
first commit also takes the run: it begins a new one, or saves over the
version that was read (claiming a pause, or taking over from a dead worker),
and fails, writing nothing, if another worker got there first.

A move may make any number of calls, but no backend takes a commit of any
size (DynamoDB: 100 items, 4 MB), so what is staged is committed, the same way
as before a write runs, before it would pass ``RECORDS_PER_COMMIT`` records or
``BYTES_PER_COMMIT`` bytes: a long move commits in bounded pieces, and its last
commit, the one that saves what a write that ran returned, always fits.

While held, the lease is renewed every third of ``lease_seconds`` in the
background, however long a tool takes, so a slow worker is never taken for a
dead one; every later commit saves the run over the version this worker last
saved, so a worker that lost its lease cannot write over the one that took
the run on.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Protocol, Self

from ..errors import StalwartError, VersionConflict
from ..storage import Changes, Event, JournalEntry, PauseRecord, RunRecord, ShownMessage, Storage, stored_bytes
from ..storage.base import listings, utf8_size

RECORDS_PER_COMMIT = 50
BYTES_PER_COMMIT = 2 * 1024 * 1024
"""A commit's bounds, as records (the run, a claimed pause, pauses and the parties each is listed under, journal
entries, events, shown messages) and their JSON bytes: half of what DynamoDB takes in one transaction (100 items,
4 MB), because DynamoDB counts more than the records: an item for each thread touched, and every attribute's name,
key and stamp besides the JSON."""


class Lease:
    def __init__(
        self,
        store: Storage,
        run: RunRecord,
        *,
        seconds: float,
        clock: Callable[[], float],
        begin: bool = False,
        claim: tuple[str, dict[str, object]] | None = None,
        claim_bytes: int = 0,
        version: int | None = None,
        owner: str | None = None,
    ) -> None:
        """``run`` is the run as this worker will hold it; ``begin`` says it is new (in a thread that ``owner``, where
        given, owns or then owns: ``Changes.owner``); otherwise ``version`` is the stored version it was read at (and
        ``claim`` the pause it answers, with ``claim_bytes`` its answer's bytes as measured before it was taken)."""
        self._store = store
        self._run = run
        self._seconds = seconds
        self._clock = clock
        self._begin = begin
        self._claim = claim
        self._claim_bytes = claim_bytes
        self._version = run.version if version is None else version
        self._held = False
        self._staged = Changes()
        self._staged_bytes = 0
        self._unmeasured: list[PauseRecord | JournalEntry | ShownMessage | Event] = []
        self._run_bytes: int | None = None
        self._lock = threading.Lock()
        self.period = seconds / 3
        self._owner = owner

    @property
    def held(self) -> bool:
        """Whether a commit has taken the run for this worker (before that, a lost race writes nothing)."""
        with self._lock:
            return self._held

    @property
    def run(self) -> RunRecord:
        with self._lock:
            return self._run

    def stage(
        self,
        *,
        pauses: tuple[PauseRecord, ...] = (),
        starts: tuple[JournalEntry, ...] = (),
        updates: tuple[tuple[JournalEntry, str, int | None], ...] = (),
        events: tuple[Event, ...] = (),
        shown: tuple[ShownMessage, ...] = (),
        closes: tuple[PauseRecord, ...] = (),
        parties: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        """Stage writes for the next commit, committing what was staged first where these would pass a bound;
        ``parties``: who may answer each of ``pauses`` (``Changes.parties``)."""
        values: tuple[PauseRecord | JournalEntry | ShownMessage | Event, ...] = (
            *pauses,
            *starts,
            *(entry for entry, _, _ in updates),
            *shown,
            *events,
        )
        with self._lock:
            if not self._staged:
                self._unmeasured += values
            else:
                size = sum(map(_bytes, values))
                listed = sum(listings(pause, parties or {}) for pause in pauses)
                if self._would_pass(len(values) + len(closes) + listed, size):
                    self._commit(None)
                self._staged_bytes += size
            self._staged.pauses += pauses
            self._staged.starts += starts
            for update in updates:
                self._coalesce(*update)
            self._staged.events += events
            self._staged.shown += shown
            self._staged.closes += closes
            self._staged.parties |= parties or {}

    def _coalesce(self, entry: JournalEntry, status: str, attempt: int | None) -> None:
        """An entry changed twice before a commit is written once, under the first condition."""
        staged = self._staged
        for index, started in enumerate(staged.starts):
            if (started.run, started.key) == (entry.run, entry.key):
                staged.starts[index] = entry
                return
        for index, (updated, first_status, first_attempt) in enumerate(staged.updates):
            if (updated.run, updated.key) == (entry.run, entry.key):
                staged.updates[index] = (entry, first_status, first_attempt)
                return
        staged.updates.append((entry, status, attempt))

    def commit(self, run: RunRecord | None = None) -> RunRecord:
        """Commit what is staged, and ``run`` where given; the first commit takes the run."""
        with self._lock:
            return self._commit(run)

    def _commit(self, run: RunRecord | None) -> RunRecord:
        changes, self._staged, self._staged_bytes, self._unmeasured = self._staged, Changes(), 0, []
        saved = run or self._run
        if self._begin:
            changes.begin, changes.owner = saved, self._owner
        else:
            changes.claim, changes.run, changes.version = self._claim, saved, self._version
        committed = self._store.commit(changes)
        if committed.run is not None:
            self._run, self._version, self._run_bytes = committed.run, committed.run.version, None
        self._begin, self._claim, self._held = False, None, True
        return self._run

    def _would_pass(self, records: int, size: int) -> bool:
        """Whether staging ``records`` more, of ``size`` bytes, would take the next commit past a bound."""
        staged = self._staged
        count = len(staged.pauses) + len(staged.starts) + len(staged.updates) + len(staged.events) + len(staged.shown)
        count += len(staged.closes) + sum(listings(pause, staged.parties) for pause in staged.pauses)
        count += records + 1 + (self._claim is not None)
        return count > RECORDS_PER_COMMIT or size + self._committing_bytes() > BYTES_PER_COMMIT

    def _committing_bytes(self) -> int:
        """The bytes the next commit holds so far: what is staged, the run and the claim.  Each is measured only when
        a bound must be checked: a move's last staging before its commit, and the run it commits, never need it."""
        self._staged_bytes += sum(map(_bytes, self._unmeasured))
        self._unmeasured = []
        if self._run_bytes is None:
            self._run_bytes = _bytes(self._run)
        claim = self._claim_bytes if self._claim is not None else 0
        return self._staged_bytes + self._run_bytes + claim

    def __enter__(self) -> Self:
        RENEWER.add(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        RENEWER.remove(self)

    def renew(self) -> bool:
        """Extend the lease if held; False once another worker has the run (stop renewing then)."""
        with self._lock:
            if not self._held or self._run.status != "running":
                return True
            saved = extended(self._store, self._run, self._version, self._clock() + self._seconds)
            if saved is None:
                return False
            self._run, self._version = saved, saved.version
            return True


def extended(store: Storage, run: RunRecord, version: int, until: float) -> RunRecord | None:
    """``run`` saved over ``version`` with its hold extended to ``until``: the saved run; None once another holds it;
    ``run`` as it was where the store could not be reached (the next renewal tries again)."""
    try:
        committed = store.commit(Changes(run=run.replace(lease_until=until), version=version))
    except VersionConflict:
        return None
    except StalwartError:
        return run
    assert committed.run is not None, "a saved run is returned"
    return committed.run


class Renewable(Protocol):
    """A hold renewed in the background: a lease on a run, or a LangGraph door's hold on a thread."""

    period: float

    def renew(self) -> bool:
        """Extend the hold; False once it is lost (stop renewing then)."""


class Renewer:
    """One background thread per process that renews each lease in use when it falls due.

    Moving a run takes a millisecond or so; starting a thread for each move would
    cost a good part of that, so the leases share this one, which sleeps until the
    next renewal is due.  Waking it costs a switch between threads, so a lease wakes
    it only when it falls due before the thread would look anyway; with nothing to
    renew it looks again after the shortest period it has seen, which a lease added
    since cannot fall due before.
    """

    def __init__(self) -> None:
        self._due: dict[Renewable, float] = {}
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._looks_at = -math.inf
        self._idle = 60.0

    def add(self, lease: Renewable) -> None:
        with self._wake:
            due = self._due[lease] = time.monotonic() + lease.period
            self._idle = min(self._idle, lease.period)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="stalwart-lease-renewer", daemon=True)
                self._thread.start()
            elif due < self._looks_at:
                self._wake.notify()

    def remove(self, lease: Renewable) -> None:
        with self._wake:
            self._due.pop(lease, None)

    def _run(self) -> None:
        while True:
            for lease in self._next_due():
                if not lease.renew():
                    self.remove(lease)

    def _next_due(self) -> list[Renewable]:
        with self._wake:
            while True:
                now = time.monotonic()
                due = [lease for lease, at in self._due.items() if at <= now]
                if due:
                    for lease in due:
                        self._due[lease] = now + lease.period
                    self._looks_at = -math.inf
                    return due
                self._looks_at = min(self._due.values(), default=now + self._idle)
                self._wake.wait(self._looks_at - now)


RENEWER = Renewer()


def _bytes(record: RunRecord | PauseRecord | JournalEntry | ShownMessage | Event) -> int:
    """What a store writes of a record or event, the measure of the bytes bound, from the encoding it then writes."""
    return utf8_size(record.text) if isinstance(record, Event) else stored_bytes(record)
