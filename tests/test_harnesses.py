"""Bounded versions of the bench harnesses, run in CI: racing answers across processes, workers killed mid-write."""

import pytest

from bench.race import race


@pytest.mark.timeout(300)
@pytest.mark.parametrize("backend", ["sqlite", "postgres", "dynamodb"])
def test_racing_two_processes_on_every_pause_executes_each_exactly_once(backend, tmp_path, request):
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'race.db'}"
    elif backend == "postgres":
        url = request.getfixturevalue("postgres_cluster").create_database("race")
    else:
        url = request.getfixturevalue("dynamodb_url")
    figures = race(url, 20, tmp_path / "ledger.jsonl")
    assert figures == {
        "races": 20,
        "one_winner": 20,
        "refused_stale": 20,
        "executed_once": 20,
        "executed_twice_or_more": 0,
        "never_executed": 0,
    }


@pytest.mark.timeout(300)
def test_workers_killed_mid_write_at_random_points_never_resend_and_a_paused_run_survives(tmp_path):
    from bench.crash import crash

    figures = crash(f"sqlite:///{tmp_path / 'crash.db'}", 6, tmp_path / "ledger.jsonl")
    assert figures == {"kills": 6, "outcome_unknown_shown": 6, "silent_resends": 0, "paused_run_survived": 1}
