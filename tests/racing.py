"""Races between processes that last a whole test: spawned once, they race again each round.

Spawning a Python process and importing the package takes the better part of a second; a test that races many
rounds starts its racers once rather than twice a round.  Each racer is a process of its own with its own Desk (or
store), as two workers of a service are; each round, every racer is sent the same task, all meet at a barrier, and
only then do they act, at the same moment.
"""

from __future__ import annotations

import multiprocessing
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

SPAWN = multiprocessing.get_context("spawn")

Act = Callable[..., Any]
"""What a racer does each round, given the round's task; what it returns is the racer's result for the round."""


def _race(make: Callable[..., Act], args: tuple[Any, ...], barrier: Any, tasks: Any, results: Any) -> None:
    try:
        act = make(*args)
        for task in iter(tasks.get, None):
            barrier.wait(timeout=30)
            results.put((task[0], act(*task[1:])))
    except BaseException:
        barrier.abort()  # the other racers are told at once, rather than wait out the barrier's timeout
        results.put((None, traceback.format_exc()))  # and the test reads why, rather than wait for a result
        raise


class Racing:
    """``make(*args)`` in a spawned process for each ``args`` given: it readies the racer (opens its Desk, say) and
    returns what it does each round.  ``make`` must be a module's top-level function, as spawn imports it anew."""

    def __init__(self, make: Callable[..., Act], *each: tuple[Any, ...]) -> None:
        self._barrier, self._results = SPAWN.Barrier(len(each)), SPAWN.Queue()
        self._tasks = [SPAWN.Queue() for _ in each]
        self._racers = [
            SPAWN.Process(target=_race, args=(make, args, self._barrier, tasks, self._results))
            for args, tasks in zip(each, self._tasks, strict=True)
        ]
        self._rounds = 0

    def __enter__(self) -> Self:
        for racer in self._racers:
            racer.start()
        return self

    def round(self, *task: Any) -> list[Any]:
        """Every racer acts on ``task`` at the same moment; their results, in the order they came (any order)."""
        self._rounds += 1
        for tasks in self._tasks:
            tasks.put((self._rounds, *task))
        got = [self._results.get(timeout=60) for _ in self._racers]
        assert all(number == self._rounds for number, _ in got), got
        return [result for _, result in got]

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        for tasks in self._tasks:
            tasks.put(None)
        for racer in self._racers:
            racer.join(timeout=30)
            if racer.exitcode is None:
                racer.kill()
                racer.join()
        if kind is None:
            assert [racer.exitcode for racer in self._racers] == [0] * len(self._racers)
