"""The run store: what every backend keeps, and the few primitives it must offer.

The engine owns the rules (when a run may move, what a pause means); a backend
only has to make each primitive below atomic and conditional.  Every write that
can race is a compare-and-set, and a lost race raises an error that carries the
current record, so callers never read-then-write.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

RUN_STATUSES = ("running", "waiting", "done", "cancelled", "failed")
FINISHED = frozenset({"done", "cancelled", "failed"})
PAUSE_STATUSES = ("open", "answered")
JOURNAL_STATUSES = ("started", "done", "failed", "unknown")


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
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class PauseRecord:
    """A question to a person.  ``payload`` is the pause's public JSON, without the token."""

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

    def replace(self, **changes: Any) -> PauseRecord:
        return dataclasses.replace(self, **changes)


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
        return dataclasses.replace(self, **changes)


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
    """A line of a thread's log, written in the same transaction as the change it reports."""

    thread: str
    body: dict[str, Any]


Events = Sequence[Event]


@runtime_checkable
class Storage(Protocol):
    """What a backend implements.  The conformance suite in ``tests/storage`` holds each to it.

    Every write takes ``events``: they are appended to their threads' logs in the
    same atomic step, and only if the write itself takes effect, so the log never
    reports a change that did not happen nor misses one that did.
    """

    url: str

    def setup(self) -> None:
        """Create or migrate the schema; safe to call on every start."""

    def close(self) -> None: ...

    def begin_run(self, run: RunRecord, *, events: Events = ()) -> RunRecord:
        """Store a new run and make it its thread's active run, in one atomic step.

        Raises ThreadBusy (with the active run's id) when the thread already has one.
        """

    def get_run(self, run_id: str) -> RunRecord | None: ...

    def active_run(self, thread: str) -> RunRecord | None:
        """The thread's unfinished run, if any."""

    def last_run(self, thread: str) -> RunRecord | None:
        """The thread's most recently begun run, finished or not."""

    def save_run(self, run: RunRecord, *, expected_version: int, events: Events = ()) -> RunRecord:
        """Compare-and-set: store ``run`` as version ``expected_version + 1``.

        Raises VersionConflict (with the current record) when the stored version differs.
        A run saved with a finished status stops being its thread's active run.
        """

    def open_pause(self, pause: PauseRecord, *, events: Events = ()) -> PauseRecord:
        """Insert a pause unless one with its id exists; return the stored one either way.

        The events are written only when this call inserted the pause.
        """

    def get_pause(self, pause_id: str) -> PauseRecord | None: ...

    def run_pauses(self, run_id: str) -> list[PauseRecord]:
        """Every pause of a run, ordered by step, then creation."""

    def claim(self, pause_id: str, answer: dict[str, Any], run: RunRecord, *, expected_version: int, events: Events = ()) -> RunRecord:
        """Answer an open pause and save its run, both or neither.

        Raises PauseClosed (with the current pause) when it is not open, and
        VersionConflict (with the current run) when the run moved; nothing changes then.
        """

    def journal_start(self, entry: JournalEntry, *, events: Events = ()) -> JournalEntry:
        """Insert an entry; raises JournalExists (with the stored entry) when its key is taken."""

    def journal_update(
        self, entry: JournalEntry, *, expected_status: str, expected_attempt: int | None = None, events: Events = ()
    ) -> JournalEntry:
        """Replace an entry whose stored status (and attempt, where given) is as expected.

        Raises JournalConflict (with the stored entry) otherwise.  The attempt
        fences a worker that lost its lease: its late write names an attempt
        that a newer one has replaced.
        """

    def journal(self, run_id: str) -> list[JournalEntry]:
        """A run's entries, in the order they were started."""

    def append_event(self, thread: str, event: dict[str, Any]) -> int:
        """Add an event to a thread's log; ids rise monotonically within a thread."""

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        """A thread's events with ids greater than ``after``, oldest first."""

    def secret(self, name: str, candidate: str) -> str:
        """The stored secret called ``name``; ``candidate`` is stored first when there is none (first writer wins)."""

    def show_message(self, message: ShownMessage) -> None:
        """Remember that a reply was shown to a session; the same id again is ignored."""

    def shown_message(self, message_id: str) -> ShownMessage | None: ...

    def rate_message(self, feedback: Feedback) -> None:
        """Keep a thumb on a message, replacing an earlier thumb on the same message."""

    def feedback(self, message_id: str) -> Feedback | None: ...
