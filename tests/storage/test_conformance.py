"""What every run store promises, whatever keeps the data.  Each test runs once per backend."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from stalwart_agents.errors import (
    JournalConflict,
    JournalExists,
    PauseClosed,
    PauseExists,
    StorageError,
    ThreadBusy,
    VersionConflict,
)
from stalwart_agents.storage import (
    FINISHED,
    Changes,
    Event,
    Feedback,
    JournalEntry,
    PauseRecord,
    RunRecord,
    ShownMessage,
    Storage,
)

from ..conftest import present
from .writes import append_event, begin_run, claim, journal_start, journal_update, open_pause, save_run, show_message

AWKWARD: dict[str, Any] = {
    "text": 'naïve café — 日本語 🚀 עברית \u0000 "quoted" \\ back\nslash',
    "ключ": {"list": [1, 2.5, -3, True, False, None, [], {}], "deep": {"a": {"b": {"c": [{"d": "é"}]}}}},
    "big": 2**62,
    "tiny": 1e-300,
    "empty": "",
}


def a_run(id: str = "run-1", thread: str = "thread-a", **changes: Any) -> RunRecord:
    fields: dict[str, Any] = dict(agent="helper", status="running", created_at=1.5, updated_at=1.5)
    return RunRecord(id=id, thread=thread, **(fields | changes))


def a_pause(id: str = "pause-1", run: str = "run-1", thread: str = "thread-a", **changes: Any) -> PauseRecord:
    fields: dict[str, Any] = dict(kind="approve", step=1, token="tok", payload={"question": "send?"}, created_at=2.5)
    return PauseRecord(id=id, run=run, thread=thread, **(fields | changes))


def an_entry(key: str = "call-1", run: str = "run-1", **changes: Any) -> JournalEntry:
    fields: dict[str, Any] = dict(tool="send_mail", arguments={"to": "ana"}, status="started", started_at=3.5)
    return JournalEntry(run=run, key=key, idempotency_key=f"{run}/{key}", **(fields | changes))


def a_waiting_run_with_a_pause(store: Storage, n: int = 1) -> RunRecord:
    run = begin_run(store, a_run(f"run-{n}", f"thread-{n}", status="waiting"))
    open_pause(store, a_pause(f"pause-{n}", run=run.id, thread=run.thread))
    return run


def race(count: int, attempt: Callable[[int], Any]) -> list[Any]:
    """Release ``attempt(0..count-1)`` on as many threads at once; each gives its result or its StorageError."""
    barrier = threading.Barrier(count)

    def contender(number: int) -> Any:
        barrier.wait(timeout=10)
        try:
            return attempt(number)
        except StorageError as exc:
            return exc

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(contender, range(count)))


def refused_claim(store: Storage, pause_id: str, run: RunRecord, *, expected_version: int) -> StorageError:
    """Make a claim that must be refused; check it changed nothing, and return the error."""
    before = (store.get_pause(pause_id), store.get_run(run.id))
    with pytest.raises(StorageError) as refused:
        claim(store, pause_id, {"answer": "late"}, run.replace(status="done"), expected_version=expected_version)
    assert (store.get_pause(pause_id), store.get_run(run.id)) == before
    return refused.value


def winners_of(outcomes: list[Any]) -> list[int]:
    return [number for number, outcome in enumerate(outcomes) if not isinstance(outcome, StorageError)]


def test_the_store_implements_the_protocol(store: Storage) -> None:
    assert isinstance(store, Storage)
    assert "://" in store.url


def test_setup_again_keeps_what_is_stored(store: Storage) -> None:
    a_waiting_run_with_a_pause(store)
    store.setup()
    assert store.get_run("run-1") is not None
    assert store.get_pause("pause-1") is not None


# runs


def test_begin_run_stores_the_run_as_its_threads_active_and_last_run(store: Storage) -> None:
    run = a_run(state={"step": 0})
    assert begin_run(store, run) == run
    assert store.get_run(run.id) == run
    assert store.active_run(run.thread) == run
    assert store.last_run(run.thread) == run


def test_unknown_runs_and_threads_give_none(store: Storage) -> None:
    assert store.get_run("nope") is None
    assert store.active_run("nope") is None
    assert store.last_run("nope") is None


def test_begin_run_refuses_a_thread_with_an_active_run(store: Storage) -> None:
    begin_run(store, a_run("run-1"))
    with pytest.raises(ThreadBusy) as refused:
        begin_run(store, a_run("run-2"))
    assert refused.value.active_run == "run-1"
    assert store.get_run("run-2") is None
    assert present(store.last_run("thread-a")).id == "run-1"


def test_a_run_begun_finished_is_its_threads_last_run_but_not_its_active_one(store: Storage) -> None:
    run = begin_run(store, a_run(status="done"))
    assert store.active_run(run.thread) is None and store.last_run(run.thread) == run
    assert begin_run(store, a_run("run-2", status="running")).id == "run-2"


def test_begin_run_refuses_a_run_id_already_taken(store: Storage) -> None:
    first = begin_run(store, a_run("run-1", "thread-a"))
    with pytest.raises(VersionConflict) as refused:
        begin_run(store, a_run("run-1", "thread-b"))
    assert refused.value.current == first
    assert store.active_run("thread-b") is None


def test_racing_begins_on_one_thread_have_exactly_one_winner(store: Storage) -> None:
    outcomes = race(8, lambda number: begin_run(store, a_run(f"run-{number}")))
    [winner] = winners_of(outcomes)
    assert all(isinstance(outcome, ThreadBusy) for number, outcome in enumerate(outcomes) if number != winner)
    assert present(store.active_run("thread-a")).id == f"run-{winner}"


def test_save_run_is_compare_and_set(store: Storage) -> None:
    run = begin_run(store, a_run(state={"step": 0}))
    saved = save_run(store, run.replace(state={"step": 1}), expected_version=0)
    assert saved == run.replace(state={"step": 1}, version=1)
    with pytest.raises(VersionConflict) as refused:
        save_run(store, run.replace(state={"step": 99}), expected_version=0)
    assert refused.value.current == saved
    assert store.get_run(run.id) == saved


def test_save_run_stores_the_next_version_whatever_version_the_record_carries(store: Storage) -> None:
    run = begin_run(store, a_run())
    assert save_run(store, run.replace(version=41), expected_version=0).version == 1
    assert present(store.get_run(run.id)).version == 1


def test_saving_an_unknown_run_is_a_conflict_with_nothing_current(store: Storage) -> None:
    with pytest.raises(VersionConflict) as refused:
        save_run(store, a_run(), expected_version=0)
    assert refused.value.current is None
    assert store.get_run("run-1") is None


def test_save_run_keeps_the_run_on_its_thread(store: Storage) -> None:
    run = begin_run(store, a_run(thread="thread-a"))
    assert save_run(store, run.replace(thread="thread-b"), expected_version=0).thread == "thread-a"
    assert present(store.active_run("thread-a")).id == run.id
    assert store.active_run("thread-b") is None


@pytest.mark.parametrize("status", sorted(FINISHED))
def test_a_finished_run_frees_its_thread(store: Storage, status: str) -> None:
    run = begin_run(store, a_run("run-1"))
    save_run(store, run.replace(status=status), expected_version=0)
    assert store.active_run(run.thread) is None
    assert present(store.last_run(run.thread)).status == status
    begin_run(store, a_run("run-2"))
    assert present(store.active_run(run.thread)).id == "run-2"
    assert present(store.last_run(run.thread)).id == "run-2"


def test_an_unfinished_run_keeps_its_thread(store: Storage) -> None:
    run = begin_run(store, a_run())
    save_run(store, run.replace(status="waiting"), expected_version=0)
    assert present(store.active_run(run.thread)).status == "waiting"
    with pytest.raises(ThreadBusy):
        begin_run(store, a_run("run-2"))


def test_racing_saves_of_one_run_have_exactly_one_winner(store: Storage) -> None:
    run = begin_run(store, a_run())
    outcomes = race(8, lambda number: save_run(store, run.replace(state={"by": number}), expected_version=0))
    [winner] = winners_of(outcomes)
    assert all(isinstance(outcome, VersionConflict) for number, outcome in enumerate(outcomes) if number != winner)
    assert present(store.get_run(run.id)).state == {"by": winner}


# pauses


def test_open_pause_is_idempotent_by_id(store: Storage) -> None:
    first = open_pause(store, a_pause(payload={"question": "first"}))
    assert first == a_pause(payload={"question": "first"})
    assert open_pause(store, a_pause(payload={"question": "second"}, step=7)) == first
    assert store.get_pause(first.id) == first


def test_get_pause_of_an_unknown_id_is_none(store: Storage) -> None:
    assert store.get_pause("nope") is None


@pytest.mark.parametrize("awkward", ["pause-1\x00", "\x00", "pause-\x1f1", "pause-1\x7f"])
def test_an_id_holding_a_control_character_is_no_stored_id(store: Storage, awkward: str) -> None:
    run = a_waiting_run_with_a_pause(store)
    show_message(store, ShownMessage("m_1", "digest-a", run.thread, "Done.", 5.5))
    store.rate_message(Feedback("m_1", "Done.", "up", 1.0))
    assert store.get_pause(awkward) is None and store.get_run(awkward) is None
    assert store.shown_message(awkward) is None and store.feedback(awkward) is None
    assert isinstance(refused_claim(store, awkward, run, expected_version=run.version), PauseClosed)
    assert present(store.get_pause("pause-1")).status == "open"


def test_run_pauses_are_ordered_by_step_then_creation(store: Storage) -> None:
    for pause_id, step, created_at in [("c", 2, 1.0), ("a", 1, 9.0), ("d", 2, 1.0), ("b", 1, 5.0), ("e", 0, 99.0)]:
        open_pause(store, a_pause(pause_id, step=step, created_at=created_at))
    open_pause(store, a_pause("other", run="run-2", step=1))
    assert [pause.id for pause in store.run_pauses("run-1")] == ["e", "b", "a", "c", "d"]
    assert store.run_pauses("nope") == []


# claims


def test_a_claim_answers_an_open_pause_and_saves_the_run_together(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    saved = claim(
        store, "pause-1", {"answer": "yes"}, run.replace(status="running", state={"s": 1}), expected_version=0
    )
    assert saved == run.replace(status="running", state={"s": 1}, version=1)
    assert store.get_run(run.id) == saved
    pause = present(store.get_pause("pause-1"))
    assert (pause.status, pause.answer) == ("answered", {"answer": "yes"})


def test_a_claim_that_finishes_the_run_frees_its_thread(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    claim(store, "pause-1", {"answer": "no"}, run.replace(status="cancelled"), expected_version=0)
    assert store.active_run(run.thread) is None
    assert present(store.last_run(run.thread)).status == "cancelled"


def test_a_second_claim_on_the_same_pause_is_refused_and_changes_nothing(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    saved = claim(store, "pause-1", {"answer": "yes"}, run.replace(status="running"), expected_version=0)
    refused = refused_claim(store, "pause-1", saved, expected_version=1)
    assert isinstance(refused, PauseClosed)
    assert refused.current == store.get_pause("pause-1")
    assert refused.current.answer == {"answer": "yes"}


def test_claim_with_a_stale_run_version_changes_neither_pause_nor_run(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    moved = save_run(store, run.replace(state={"moved": True}), expected_version=0)
    refused = refused_claim(store, "pause-1", run, expected_version=0)
    assert isinstance(refused, VersionConflict)
    assert refused.current == moved
    assert present(store.get_pause("pause-1")).status == "open"


def test_a_claim_on_an_unknown_pause_is_refused_with_nothing_current(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    refused = refused_claim(store, "nope", run, expected_version=0)
    assert isinstance(refused, PauseClosed)
    assert refused.current is None


def test_a_closed_pause_is_reported_before_a_stale_run(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    claim(store, "pause-1", {"answer": "yes"}, run, expected_version=0)
    assert isinstance(refused_claim(store, "pause-1", run, expected_version=0), PauseClosed)


def test_a_claim_whose_answer_is_not_json_changes_nothing(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    with pytest.raises(TypeError):
        claim(store, "pause-1", {"answer": object()}, run, expected_version=0)
    assert present(store.get_pause("pause-1")).status == "open"
    assert store.get_run(run.id) == run


def test_racing_claims_from_many_threads_have_exactly_one_winner(store: Storage) -> None:
    for round_number in range(5):
        run = a_waiting_run_with_a_pause(store, round_number)
        pause_id = f"pause-{round_number}"

        def attempt(number: int, run: RunRecord = run, pause_id: str = pause_id) -> RunRecord:
            return claim(store, pause_id, {"by": number}, run.replace(status="running"), expected_version=0)

        outcomes = race(8, attempt)
        [winner] = winners_of(outcomes)
        losers = [outcome for number, outcome in enumerate(outcomes) if number != winner]
        assert all(isinstance(outcome, (PauseClosed, VersionConflict)) for outcome in losers)
        assert present(store.get_pause(pause_id)).answer == {"by": winner}
        assert store.get_run(run.id) == outcomes[winner]


# journal


def test_journal_start_stores_the_entry(store: Storage) -> None:
    entry = an_entry(arguments=AWKWARD)
    assert journal_start(store, entry) == entry
    assert store.journal("run-1") == [entry]


def test_journal_start_refuses_a_taken_key_and_returns_the_stored_entry(store: Storage) -> None:
    first = journal_start(store, an_entry(arguments={"n": 1}))
    with pytest.raises(JournalExists) as refused:
        journal_start(store, an_entry(arguments={"n": 2}))
    assert refused.value.current == first
    assert store.journal("run-1") == [first]


def test_journal_keys_belong_to_their_run(store: Storage) -> None:
    journal_start(store, an_entry("call-1", run="run-1"))
    journal_start(store, an_entry("call-1", run="run-2"))
    assert [entry.run for entry in store.journal("run-2")] == ["run-2"]


def test_journal_update_requires_the_expected_status(store: Storage) -> None:
    started = journal_start(store, an_entry())
    done = started.replace(status="done", result={"sent": True, "id": "ü"}, finished_at=4.5)
    assert journal_update(store, done, expected_status="started") == done
    with pytest.raises(JournalConflict) as refused:
        journal_update(store, started.replace(status="failed", error="boom"), expected_status="started")
    assert refused.value.current == done
    assert store.journal("run-1") == [done]


def test_journal_update_of_an_unknown_entry_is_a_conflict_with_nothing_current(store: Storage) -> None:
    with pytest.raises(JournalConflict) as refused:
        journal_update(store, an_entry(status="done"), expected_status="started")
    assert refused.value.current is None
    assert store.journal("run-1") == []


def test_journal_lists_entries_in_started_order(store: Storage) -> None:
    for key in ["zeta", "alpha", "mid"]:
        journal_start(store, an_entry(key))
    journal_update(store, an_entry("zeta", status="unknown"), expected_status="started")
    journal_start(store, an_entry("beta"))
    assert [entry.key for entry in store.journal("run-1")] == ["zeta", "alpha", "mid", "beta"]
    assert store.journal("nope") == []


def test_racing_journal_starts_on_one_key_have_exactly_one_winner(store: Storage) -> None:
    outcomes = race(8, lambda number: journal_start(store, an_entry(attempt=number + 1)))
    [winner] = winners_of(outcomes)
    assert all(isinstance(outcome, JournalExists) for number, outcome in enumerate(outcomes) if number != winner)
    assert store.journal("run-1") == [outcomes[winner]]


# events


def test_events_have_rising_ids_and_replay_after_a_cursor(store: Storage) -> None:
    ids = [append_event(store, "thread-a", {"n": n}) for n in range(5)]
    assert ids == sorted(set(ids))
    assert store.events("thread-a") == [(event_id, {"n": n}) for n, event_id in enumerate(ids)]
    assert store.events("thread-a", after=ids[2]) == [(ids[3], {"n": 3}), (ids[4], {"n": 4})]
    assert store.events("thread-a", after=ids[4]) == []


def test_events_limit_caps_a_page(store: Storage) -> None:
    ids = [append_event(store, "thread-a", {"n": n}) for n in range(5)]
    assert [event_id for event_id, _ in store.events("thread-a", limit=2)] == ids[:2]
    assert [event_id for event_id, _ in store.events("thread-a", after=ids[1], limit=2)] == ids[2:4]
    assert store.events("thread-a", limit=0) == []


def test_events_of_an_unknown_thread_are_empty(store: Storage) -> None:
    assert store.events("nope") == []


def test_racing_appends_get_distinct_ids(store: Storage) -> None:
    ids = race(8, lambda number: append_event(store, "thread-a", {"n": number}))
    assert len(set(ids)) == 8
    assert sorted(body["n"] for _, body in store.events("thread-a")) == list(range(8))
    assert [event_id for event_id, _ in store.events("thread-a")] == sorted(ids)


# isolation and round trips


def test_threads_are_isolated(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store, 1)
    journal_start(store, an_entry(run=run.id))
    event_a = append_event(store, run.thread, {"thread": "one"})
    event_b = append_event(store, "thread-2", {"thread": "two"})
    assert store.active_run("thread-2") is None
    assert store.last_run("thread-2") is None
    assert store.events("thread-2") == [(event_b, {"thread": "two"})]
    assert store.events(run.thread) == [(event_a, {"thread": "one"})]
    assert store.run_pauses("run-2") == []
    assert store.journal("run-2") == []
    other = begin_run(store, a_run("run-2", "thread-2"))
    assert store.active_run(run.thread) == run
    assert store.active_run("thread-2") == other


def test_records_round_trip_unicode_and_nested_json_exactly(store: Storage) -> None:
    run = a_run("rün-✓", "thread-ü", agent="агент", state=AWKWARD, lease_owner="wörker", lease_until=9.5)
    begin_run(store, run)
    pause = open_pause(store, a_pause("pàuse", run=run.id, thread=run.thread, payload=AWKWARD, kind="ask 🙋"))
    claim(store, pause.id, AWKWARD, run, expected_version=0)
    entry = journal_start(store, an_entry("këy", run=run.id, arguments=AWKWARD, result=[AWKWARD], error="✗"))
    event_id = append_event(store, run.thread, AWKWARD)
    assert store.get_run(run.id) == run.replace(version=1)
    assert store.get_pause(pause.id) == pause.replace(status="answered", answer=AWKWARD)
    assert store.journal(run.id) == [entry]
    assert entry.result == [AWKWARD]
    assert store.events(run.thread) == [(event_id, AWKWARD)]


def test_values_come_back_as_json_would_return_them(store: Storage) -> None:
    stored = begin_run(store, a_run(state={"pair": (1, 2), 3: "three"}))
    assert stored.state == {"pair": [1, 2], "3": "three"}
    assert present(store.get_run(stored.id)).state == stored.state


def test_a_value_json_cannot_hold_is_refused_and_nothing_is_stored(store: Storage) -> None:
    with pytest.raises(TypeError):
        begin_run(store, a_run(state={"when": object()}))
    assert store.get_run("run-1") is None
    assert store.active_run("thread-a") is None


def test_an_unknown_status_is_refused(store: Storage) -> None:
    with pytest.raises(ValueError):
        begin_run(store, a_run(status="paused"))
    with pytest.raises(ValueError):
        open_pause(store, a_pause(status="shut"))
    with pytest.raises(ValueError):
        journal_start(store, an_entry(status="pending"))
    assert store.get_run("run-1") is None
    assert store.get_pause("pause-1") is None
    assert store.journal("run-1") == []


def test_records_handed_out_are_copies_that_cannot_change_the_store(store: Storage) -> None:
    run = a_run(state={"items": [1]})
    stored = begin_run(store, run)
    run.state["items"].append("by the caller")
    stored.state["items"].append("by the caller")
    present(store.get_run(run.id)).state["items"].append("by the caller")
    present(store.active_run(run.thread)).state["items"].append("by the caller")
    event: dict[str, list[object]] = {"items": [1]}
    append_event(store, run.thread, event)
    event["items"].append("by the caller")
    store.events(run.thread)[0][1]["items"].append("by the caller")
    assert present(store.get_run(run.id)).state == {"items": [1]}
    assert store.events(run.thread)[0][1] == {"items": [1]}


def logged(store: Storage, thread: str = "thread-a") -> list[str]:
    return [body["what"] for _, body in store.events(thread)]


def said(what: str, thread: str = "thread-a") -> list[Event]:
    return [Event(thread, {"what": what})]


def test_events_are_written_with_the_write_that_reports_them(store: Storage) -> None:
    run = begin_run(store, a_run(), events=said("begun"))
    open_pause(store, a_pause(), events=said("paused"))
    run = claim(
        store,
        "pause-1",
        {"decision": "ok"},
        run.replace(status="running"),
        expected_version=run.version,
        events=said("claimed"),
    )
    journal_start(store, an_entry(), events=said("started"))
    journal_update(store, an_entry(status="done"), expected_status="started", events=said("done"))
    save_run(store, run.replace(status="done"), expected_version=run.version, events=said("finished"))
    assert logged(store) == ["begun", "paused", "claimed", "started", "done", "finished"]


def test_a_write_that_does_not_take_effect_writes_none_of_its_events(store: Storage) -> None:
    run = begin_run(store, a_run())
    open_pause(store, a_pause())
    journal_start(store, an_entry())
    attempts = [
        lambda: begin_run(store, a_run("run-2"), events=said("second begin")),
        lambda: save_run(store, run, expected_version=run.version + 5, events=said("stale save")),
        lambda: claim(store, "pause-1", {}, run, expected_version=run.version + 5, events=said("stale claim")),
        lambda: journal_start(store, an_entry(), events=said("second start")),
        lambda: journal_update(store, an_entry(status="done"), expected_status="done", events=said("wrong status")),
    ]
    for attempt in attempts:
        with pytest.raises(StorageError):
            attempt()
    open_pause(store, a_pause(), events=said("pause again"))
    assert logged(store) == []


def test_of_several_refused_writes_the_first_in_order_is_raised_and_nothing_is_written(store: Storage) -> None:
    """A backend may send a commit's writes before learning whether each took effect (Postgres's pipeline): the
    refusal raised is still the first in the order ``Changes`` lists them, and nothing of the commit stays."""
    run = begin_run(store, a_run())
    open_pause(store, a_pause())
    journal_start(store, an_entry())
    pause_taken, entry_taken = [a_pause()], [an_entry()]
    attempts: list[tuple[Changes, type[StorageError]]] = [
        (Changes(begin=a_run(thread="thread-b"), pauses=[a_pause("pause-2")], starts=[an_entry()]), VersionConflict),
        (Changes(claim=("pause-9", {}), run=run, version=run.version, pauses=pause_taken), PauseClosed),
        (Changes(pauses=[a_pause("pause-3"), *pause_taken], starts=entry_taken), PauseExists),
        (
            Changes(starts=[an_entry("call-2"), *entry_taken], updates=[(an_entry("call-7"), "done", None)]),
            JournalExists,
        ),
        (Changes(starts=[an_entry("call-3")], updates=[(an_entry(status="done"), "done", None)]), JournalConflict),
    ]
    for changes, refusal in attempts:
        changes.events = said("refused") + said("refused", "thread-b")
        with pytest.raises(refusal):
            store.commit(changes)
    assert logged(store) == logged(store, "thread-b") == [] and store.active_run("thread-b") is None
    assert store.get_pause("pause-2") is None and store.get_pause("pause-3") is None
    assert [entry.key for entry in store.journal(run.id)] == ["call-1"]
    assert present(store.get_pause("pause-1")).status == "open" and present(store.get_run(run.id)) == run


def test_events_of_one_write_may_go_to_several_threads(store: Storage) -> None:
    begin_run(store, a_run(), events=said("here") + said("there", "thread-b"))
    assert (logged(store), logged(store, "thread-b")) == (["here"], ["there"])


def test_journal_update_with_an_attempt_fences_a_late_writer(store: Storage) -> None:
    journal_start(store, an_entry())
    journal_update(store, an_entry(attempt=2), expected_status="started", expected_attempt=1)
    with pytest.raises(JournalConflict) as refused:
        journal_update(store, an_entry(status="done"), expected_status="started", expected_attempt=1)
    assert refused.value.current.attempt == 2 and refused.value.current.status == "started"
    assert (
        journal_update(store, an_entry(status="done", attempt=2), expected_status="started", expected_attempt=2).status
        == "done"
    )


def test_the_first_secret_written_is_the_one_every_caller_gets(store: Storage) -> None:
    outcomes = race(6, lambda number: store.secret("session", f"candidate-{number}"))
    assert len(set(outcomes)) == 1 and outcomes[0].startswith("candidate-")
    assert store.secret("session", "late") == outcomes[0] and store.secret("other", "x") == "x"


def test_a_thread_belongs_to_whoever_owned_it_first_even_in_a_race(store: Storage) -> None:
    assert store.owner("t-owned") is None
    outcomes = race(6, lambda number: store.own("t-owned", f"principal-{number}"))
    assert len(set(outcomes)) == 1 and outcomes[0].startswith("principal-")
    assert store.owner("t-owned") == outcomes[0] and store.own("t-owned", "late") == outcomes[0]
    assert store.owner("t-other") is None and store.own("t-other", "x") == "x"


def test_a_shown_message_is_remembered_once(store: Storage) -> None:
    shown = ShownMessage("m_1", "digest-a", "thread-a", "Done: pay. ✓", 5.5)
    show_message(store, shown)
    show_message(store, ShownMessage("m_1", "digest-b", "thread-b", "other", 6.5))
    assert store.shown_message("m_1") == shown and store.shown_message("m_2") is None


def test_a_later_thumb_replaces_an_earlier_one(store: Storage) -> None:
    store.rate_message(Feedback("m_1", "Done: pay.", "up", 1.0))
    store.rate_message(Feedback("m_1", "Done: pay.", "down", 2.0))
    assert store.feedback("m_1") == Feedback("m_1", "Done: pay.", "down", 2.0) and store.feedback("m_2") is None


def test_a_commit_takes_effect_whole_or_not_at_all(store: Storage) -> None:
    run = begin_run(store, a_run(status="waiting"))
    open_pause(store, a_pause())
    journal_start(store, an_entry())
    doomed = Changes(
        claim=("pause-1", {"decision": "approve"}),
        run=run.replace(status="running"),
        version=run.version,
        pauses=[a_pause("pause-2")],
        starts=[an_entry("call-2"), an_entry("call-1")],
        events=said("never"),
    )
    with pytest.raises(JournalExists):
        store.commit(doomed)
    assert present(store.get_pause("pause-1")).status == "open" and store.get_pause("pause-2") is None
    assert store.get_run(run.id) == run and [e.key for e in store.journal(run.id)] == ["call-1"] and logged(store) == []


def test_a_snapshot_reads_a_run_with_its_pauses_and_journal(store: Storage) -> None:
    run = begin_run(store, a_run())
    store.commit(
        Changes(pauses=[a_pause("pause-2", step=2), a_pause("pause-1")], starts=[an_entry("b"), an_entry("a")])
    )
    snapshot = present(store.snapshot(run.id))
    assert snapshot.run == run and [p.id for p in snapshot.pauses] == ["pause-1", "pause-2"]
    assert [e.key for e in snapshot.journal] == ["b", "a"] and store.snapshot("nope") is None


def test_a_commit_gives_its_events_rising_ids(store: Storage) -> None:
    committed = store.commit(Changes(events=said("one") + said("two")))
    assert committed.run is None and committed.event_ids[0] < committed.event_ids[1]
    assert [i for i, _ in store.events("thread-a")] == committed.event_ids


def test_a_delivery_outcome_is_written_on_its_pause(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    store.note_delivery(run.id, "pause-1", {"delivered": False, "error": "refused"})
    store.note_delivery(run.id, "pause-1", {"delivered": True})
    store.note_delivery(run.id, "no-such-pause", {"delivered": True})
    assert present(store.get_pause("pause-1")).delivery == {"delivered": True}
    assert present(store.snapshot(run.id)).pauses[0].delivery == {"delivered": True}


def test_a_delivery_is_claimed_by_one_caller_at_a_time_and_never_once_delivered(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    assert store.claim_delivery(run.id, "pause-1", 100.0, 60.0)
    assert not store.claim_delivery(run.id, "pause-1", 159.0, 60.0)  # the first claim stands
    assert store.claim_delivery(run.id, "pause-1", 161.0, 60.0)  # it lapsed: its caller died
    store.note_delivery(run.id, "pause-1", {"delivered": False, "error": "refused"})
    assert store.claim_delivery(run.id, "pause-1", 300.0, 60.0)  # a failed delivery is tried again
    store.note_delivery(run.id, "pause-1", {"delivered": True})
    assert not store.claim_delivery(run.id, "pause-1", 10_000.0, 60.0)
    assert not store.claim_delivery(run.id, "no-such-pause", 100.0, 60.0)
    assert not store.claim_delivery("run-other", "pause-1", 20_000.0, 60.0)


def test_racing_claims_of_a_delivery_have_exactly_one_winner(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    assert sum(race(6, lambda number: store.claim_delivery(run.id, "pause-1", 100.0, 60.0))) == 1


def test_due_deliveries_are_open_pauses_whose_announcement_failed_or_never_came(store: Storage) -> None:
    runs = [a_waiting_run_with_a_pause(store, n) for n in range(1, 7)]
    store.note_delivery(runs[1].id, "pause-2", {"delivered": False, "error": "refused", "at": 10.0, "next_at": 500.0})
    store.note_delivery(runs[2].id, "pause-3", {"delivered": True, "at": 10.0})
    store.note_delivery(runs[3].id, "pause-4", {"delivered": False, "given_up": True, "at": 10.0})
    store.note_delivery(runs[4].id, "pause-5", {"delivered": False, "error": "refused", "at": 20.0})
    claim(store, "pause-6", {"answer": "yes"}, runs[5].replace(status="running"), expected_version=0)
    assert [pause.id for pause in store.due_deliveries(62.0)] == ["pause-5"]  # failed, no next time: due at once
    # never noted, due a minute after it opened (2.5)
    assert [pause.id for pause in store.due_deliveries(63.0)] == ["pause-5", "pause-1"]
    due = store.due_deliveries(500.0)
    assert [pause.id for pause in due] == ["pause-5", "pause-1", "pause-2"]
    assert due[2] == store.get_pause("pause-2")
    assert [pause.id for pause in store.due_deliveries(500.0, limit=1)] == ["pause-5"]


def test_a_delivery_noted_again_moves_when_it_is_due(store: Storage) -> None:
    run = a_waiting_run_with_a_pause(store)
    store.note_delivery(run.id, "pause-1", {"delivered": False, "at": 10.0, "next_at": 100.0})
    assert [pause.id for pause in store.due_deliveries(100.0)] == ["pause-1"]
    store.note_delivery(run.id, "pause-1", {"delivered": False, "attempts": 2, "at": 100.0, "next_at": 160.0})
    assert store.due_deliveries(159.0) == [] and len(store.due_deliveries(160.0)) == 1
    store.note_delivery(run.id, "pause-1", {"delivered": True, "attempts": 3, "at": 160.0})
    assert store.due_deliveries(10_000.0) == []


# upkeep: stale runs and retention

T0 = 1_000_000.0
DAY = 86400.0


def at(store: Storage, when: float) -> None:
    """Make the store's clock (the time its commits are stamped with) read ``when``."""
    store.clock = lambda: when


def test_stale_runs_are_running_runs_whose_lease_ran_out(store: Storage) -> None:
    begin_run(store, a_run("run-dead", "thread-dead", lease_owner="w", lease_until=T0 - 1))
    begin_run(store, a_run("run-alive", "thread-alive", lease_owner="w", lease_until=T0 + 30))
    begin_run(store, a_run("run-waiting", "thread-waiting", status="waiting"))
    begin_run(store, a_run("run-done", "thread-done", status="done", lease_until=T0 - 10))
    assert [run.id for run in store.stale_runs(T0)] == ["run-dead"]
    assert store.stale_runs(T0, limit=0) == [] and store.stale_runs(T0 - 2) == []
    assert store.stale_runs(T0)[0] == store.get_run("run-dead")


def a_whole_finished_thread(store: Storage, thread: str, when: float) -> RunRecord:
    """A thread as a finished turn leaves it: a run, a pause, a journal entry, events, a shown reply, an owner."""
    at(store, when)
    store.own(thread, "ana")
    run = begin_run(store, a_run(f"run-{thread}", thread), events=said("turn", thread))
    open_pause(store, a_pause(f"pause-{thread}", run=run.id, thread=thread))
    journal_start(store, an_entry(run=run.id))
    show_message(store, ShownMessage(f"m-{thread}", "digest", thread, "Done.", when))
    return save_run(store, run.replace(status="done"), expected_version=run.version, events=said("done", thread))


def expires_by(store: Storage, names: list[str], now: float) -> dict[tuple[str, str], bool]:
    """For each DynamoDB item kept under one of ``names`` (a thread, run or message), by its key: whether its TTL
    (``expires``) removes it by ``now``.  A test's table is small, so it is read whole."""
    found = {}
    for page in store.client.get_paginator("scan").paginate(TableName=store.table, ConsistentRead=True):  # type: ignore[attr-defined]
        for item in page["Items"]:
            key = (item["pk"]["S"], item["sk"]["S"])
            if key[0].partition("#")[2] in names:
                found[key] = "expires" in item and float(item["expires"]["N"]) <= now
    return found


def expires_itself(store: Storage) -> bool:
    """DynamoDB removes records itself, by TTL, where the others' ``prune`` deletes them."""
    return store.url.startswith("dynamodb://")


def assert_removed(store: Storage, run: RunRecord, now: float) -> None:
    """The thread is gone by ``now``, with all it held: deleted, or (DynamoDB) every item expiring by then."""
    if expires_itself(store):
        expiring = expires_by(store, [run.thread, run.id], now)
        assert expiring and all(expiring.values())
        return
    assert store.last_run(run.thread) is None and store.active_run(run.thread) is None
    assert store.snapshot(run.id) is None and store.get_run(run.id) is None
    assert store.get_pause(f"pause-{run.thread}") is None and store.journal(run.id) == []
    assert store.events(run.thread) == [] and store.owner(run.thread) is None
    assert store.shown_message(f"m-{run.thread}") is None


def assert_kept(store: Storage, run: RunRecord, now: float) -> None:
    """The thread and all it holds are there at ``now``: (DynamoDB) none of its items expiring by then."""
    if expires_itself(store):
        expiring = expires_by(store, [run.thread, run.id], now)
        assert expiring and not any(expiring.values())
        return
    snapshot = store.snapshot(run.id)
    assert snapshot is not None and snapshot.pauses and store.last_run(run.thread) is not None


def test_prune_removes_a_finished_idle_thread_whole(store: Storage) -> None:
    run = a_whole_finished_thread(store, "thread-old", T0)
    now = T0 + store.retention + 1
    pruned = store.prune(now)
    assert pruned.threads == (0 if expires_itself(store) else 1)
    assert_removed(store, run, now)
    assert store.prune(now).threads == 0


def test_prune_never_removes_a_waiting_or_running_thread(store: Storage) -> None:
    at(store, T0)
    waiting = a_waiting_run_with_a_pause(store)
    running = begin_run(store, a_run("run-2", "thread-2", lease_owner="w", lease_until=T0 + 30))
    open_pause(store, a_pause("pause-2", run=running.id, thread=running.thread, status="answered"))
    now = T0
    for _ in range(25):  # ten retentions of sweeps, each well within one: what the sweep's schedule does
        now += 0.4 * store.retention
        assert store.prune(now).threads == 0
    for run in (waiting, running):
        assert_kept(store, run, now)
    assert store.get_run(waiting.id) == waiting and present(store.get_pause("pause-1")).status == "open"


def test_a_thread_with_recent_activity_is_kept(store: Storage) -> None:
    old = a_whole_finished_thread(store, "thread-old", T0)
    busy = a_whole_finished_thread(store, "thread-busy", T0)
    at(store, T0 + store.retention / 2)
    begin_run(store, a_run("run-later", "thread-busy", status="done"), events=said("a later turn", "thread-busy"))
    now = T0 + store.retention + 1
    store.prune(now)
    assert_removed(store, old, now)
    if expires_itself(store):  # items expire one by one: the thread's own item stays while it is active
        assert expires_by(store, ["thread-busy"], now)[("T#thread-busy", "THREAD")] is False
    else:
        assert_kept(store, busy, now)
        assert present(store.last_run("thread-busy")).id == "run-later"


def test_prune_removes_shown_replies_and_thumbs_older_than_the_retention(store: Storage) -> None:
    at(store, T0)
    a_waiting_run_with_a_pause(store)
    show_message(store, ShownMessage("m-old", "digest", "thread-1", "Waiting.", T0))
    store.rate_message(Feedback("m-old", "Waiting.", "up", T0))
    at(store, T0 + DAY)
    show_message(store, ShownMessage("m-new", "digest", "thread-1", "Still waiting.", T0 + DAY))
    store.rate_message(Feedback("m-new", "Still waiting.", "down", T0 + DAY))
    now = T0 + store.retention + 1
    pruned = store.prune(now)
    if expires_itself(store):
        expiring = expires_by(store, ["m-old"], now), expires_by(store, ["m-new"], now)
        assert expiring[0] and all(expiring[0].values()) and expiring[1] and not any(expiring[1].values())
        return
    assert pruned.records == 2
    assert store.shown_message("m-old") is None and store.feedback("m-old") is None
    assert store.shown_message("m-new") is not None and store.feedback("m-new") is not None


def test_a_dry_run_of_prune_counts_what_prune_does_and_changes_nothing(store: Storage) -> None:
    old = a_whole_finished_thread(store, "thread-old", T0)
    waiting = a_waiting_run_with_a_pause(store)
    now = T0 + store.retention + 1

    def stored() -> Any:
        if expires_itself(store):
            return expires_by(store, [old.thread, old.id, waiting.thread, waiting.id], now)
        return [store.snapshot(old.id), store.events(old.thread), store.shown_message("m-thread-old")]

    before = stored()
    counted = store.prune(now, dry_run=True)
    assert stored() == before
    assert store.prune(now) == counted


def test_prune_works_through_more_threads_than_one_batch(store: Storage) -> None:
    at(store, T0)
    for number in range(230):
        begin_run(
            store, a_run(f"run-{number}", f"thread-{number}", status="done"), events=said("x", f"thread-{number}")
        )
    now = T0 + store.retention + 1
    pruned = store.prune(now)
    if expires_itself(store):
        assert pruned.threads == 0 and all(expires_by(store, ["thread-0", "thread-229"], now).values())
    else:
        assert pruned.threads == 230 and store.last_run("thread-229") is None and store.events("thread-0") == []
