"""Two processes answering one pause on one SQLite file: exactly one answer runs the call."""

import multiprocessing

import pytest

from stalwart_agents import Desk, InterruptStale

from .conftest import SHOP

ROUNDS = 8


def answer(url, thread, pause_id, token, barrier, results):
    desk = Desk.from_file(SHOP, storage=url)
    barrier.wait()
    try:
        reply = desk.confirm(thread, "approve", waiting=pause_id, token=token)
        results.put(("ok", reply.status))
    except InterruptStale:
        results.put(("stale", None))


def race(url, thread, pause):
    """Two processes, each with its own Desk on ``url``, answer ``pause`` at the same moment; their outcomes."""
    spawn = multiprocessing.get_context("spawn")
    barrier, results = spawn.Barrier(2), spawn.Queue()
    workers = [
        spawn.Process(target=answer, args=(url, thread, pause.id, pause.token, barrier, results)) for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    outcomes = sorted(results.get(timeout=60) for _ in workers)
    for worker in workers:
        worker.join(timeout=30)
    return outcomes


@pytest.mark.timeout(120)
def test_two_processes_racing_one_answer_run_the_call_once(tmp_path, ledger):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    desk = Desk.from_file(SHOP, storage=url)
    for n in range(ROUNDS):
        thread = f"race-{n}"
        pause = desk.send(thread, "charge 40 to order 4411").waiting[0]
        assert race(url, thread, pause) == [("ok", "done"), ("stale", None)]
    charges = ledger("charge")
    assert len(charges) == ROUNDS
