"""A reader that follows a thread's log by the last id it saw misses nothing, however many commits append to the
thread at once: ids rise in the order the events become visible.  On the backends that number events from one
sequence for every thread (DynamoDB numbers each thread's on its item, in the commit's own condition)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stalwart_agents.storage import Changes, Event, Storage, open_storage

from .conftest import BACKENDS

WRITERS, COMMITS = 3, 20


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    opened = open_storage(BACKENDS[request.param](request, tmp_path))
    yield opened
    opened.close()


def test_a_reader_following_a_log_by_its_last_id_misses_no_event_of_racing_commits(store: Storage) -> None:
    def write(writer: int) -> None:
        for n in range(COMMITS):
            store.commit(Changes(events=[Event("t", {"writer": writer, "n": n}), Event("t", {"writer": writer})]))

    writers = [threading.Thread(target=write, args=(writer,)) for writer in range(WRITERS)]
    for writer in writers:
        writer.start()
    seen: list[int] = []
    deadline = time.monotonic() + 60
    while len(seen) < 2 * WRITERS * COMMITS and time.monotonic() < deadline:
        seen += [event_id for event_id, _ in store.events("t", after=seen[-1] if seen else 0)]
    for writer in writers:
        writer.join()
    assert seen == [event_id for event_id, _ in store.events("t")] and len(seen) == 2 * WRITERS * COMMITS
