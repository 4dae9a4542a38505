"""Two processes answering one pause on one SQLite file: exactly one answer runs the call."""

import pytest

from stalwart_agents import Desk, InterruptStale

from .conftest import SHOP
from .racing import Act, Racing

ROUNDS = 8


def answerer(url: str) -> Act:
    """A process's own Desk on ``url``; each round it approves the pause it is sent."""
    desk = Desk.from_file(SHOP, storage=url)

    def answer(thread, pause_id, token):
        try:
            return ("ok", desk.confirm(thread, "approve", waiting=pause_id, token=token).status)
        except InterruptStale:
            return ("stale", None)

    return answer


def race(url, thread, pause):
    """Two processes, each with its own Desk on ``url``, answer ``pause`` at the same moment; their outcomes."""
    with Racing(answerer, (url,), (url,)) as two:
        return sorted(two.round(thread, pause.id, pause.token))


@pytest.mark.timeout(120)
def test_two_processes_racing_one_answer_run_the_call_once(tmp_path, ledger):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    desk = Desk.from_file(SHOP, storage=url)
    with Racing(answerer, (url,), (url,)) as two:  # two processes, each with its own Desk on url
        for n in range(ROUNDS):
            thread = f"race-{n}"
            pause = desk.send(thread, "charge 40 to order 4411").waiting[0]
            assert sorted(two.round(thread, pause.id, pause.token)) == [("ok", "done"), ("stale", None)]
    charges = ledger("charge")
    assert len(charges) == ROUNDS
