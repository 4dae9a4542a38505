"""The single-purpose writes the storage tests make, each one ``commit`` of ``Changes``.

A store offers only ``commit``; these name the moves the tests make again and
again, and hand back what the store then holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stalwart_agents.errors import PauseExists
from stalwart_agents.storage import (
    Changes,
    Committed,
    Event,
    JournalEntry,
    PauseRecord,
    RunRecord,
    RunStore,
    ShownMessage,
)

Events = Sequence[Event]


def begin_run(store: RunStore, run: RunRecord, *, events: Events = ()) -> RunRecord:
    """Store a new run as its thread's active run; ThreadBusy when the thread has one."""
    return _run_of(store.commit(Changes(begin=run, events=list(events))))


def save_run(store: RunStore, run: RunRecord, *, expected_version: int, events: Events = ()) -> RunRecord:
    """Compare-and-set: store ``run`` as version ``expected_version + 1``, or VersionConflict."""
    return _run_of(store.commit(Changes(run=run, version=expected_version, events=list(events))))


def claim(
    store: RunStore,
    pause_id: str,
    answer: dict[str, Any],
    run: RunRecord,
    *,
    expected_version: int,
    events: Events = (),
) -> RunRecord:
    """Answer an open pause and save its run, both or neither."""
    changes = Changes(claim=(pause_id, answer), run=run, version=expected_version, events=list(events))
    return _run_of(store.commit(changes))


def open_pause(store: RunStore, pause: PauseRecord, *, events: Events = ()) -> PauseRecord:
    """Insert a pause unless one with its id exists; the stored one either way (events only if inserted)."""
    try:
        store.commit(Changes(pauses=[pause], events=list(events)))
    except PauseExists as exc:
        current: PauseRecord = exc.current
        return current
    [stored] = [p for p in store.run_pauses(pause.run) if p.id == pause.id]
    return stored


def journal_start(store: RunStore, entry: JournalEntry, *, events: Events = ()) -> JournalEntry:
    """Insert an entry; JournalExists (with the stored entry) when its key is taken."""
    store.commit(Changes(starts=[entry], events=list(events)))
    return _entry(store, entry)


def journal_update(
    store: RunStore,
    entry: JournalEntry,
    *,
    expected_status: str,
    expected_attempt: int | None = None,
    events: Events = (),
) -> JournalEntry:
    """Replace an entry whose stored status (and attempt, where given) is as expected; JournalConflict otherwise."""
    store.commit(Changes(updates=[(entry, expected_status, expected_attempt)], events=list(events)))
    return _entry(store, entry)


def append_event(store: RunStore, thread: str, body: dict[str, Any]) -> int:
    return store.commit(Changes(events=[Event(thread, body)])).event_ids[0]


def show_message(store: RunStore, message: ShownMessage) -> None:
    """Remember that a reply was shown to a session; the same id again is ignored."""
    store.commit(Changes(shown=[message]))


def _run_of(committed: Committed) -> RunRecord:
    assert committed.run is not None
    return committed.run


def _entry(store: RunStore, entry: JournalEntry) -> JournalEntry:
    [stored] = [e for e in store.journal(entry.run) if e.key == entry.key]
    return stored
