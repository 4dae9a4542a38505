"""The engine's Literal statuses and the run store's status tuples are the same sets, in the same order."""

from typing import get_args

from stalwart_agents.storage.base import JOURNAL_STATUSES, PAUSE_STATUSES, RUN_STATUSES
from stalwart_agents.vocabulary import JournalStatus, PauseStatus, RunStatus


def test_the_stores_statuses_are_the_engines_literals():
    assert get_args(RunStatus) == RUN_STATUSES
    assert get_args(PauseStatus) == PAUSE_STATUSES
    assert get_args(JournalStatus) == JOURNAL_STATUSES
