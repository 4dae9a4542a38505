"""The sweep: what keeps runs moving and a store bounded when no request comes.

A run whose worker died is carried on by the next turn or answer on its thread;
where nobody comes, the sweep does it, so an approval that was cut off turns
into an ``outcome_unknown`` pause someone is told of.  Then it prunes what the
retention lets go (``Upkeep.prune``).  ``stalwart serve`` sweeps every few
minutes in a background thread; the stack runs ``handler`` on a schedule, with
a role of its own, so no route that reads ever has to write.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import cache, partial
from typing import Any

from .. import telemetry
from ..desk import Desk
from ..repeat import Repeating
from ..storage import Pruned

EVERY = 300.0
"""Seconds between two sweeps of ``stalwart serve``."""
STALE_RUNS = 100
"""Runs carried on per sweep at most: the next sweep takes the rest."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Swept:
    """What one sweep did: runs it carried on (not those another worker did first), pauses it opened, runs it
    could not carry on, and the prune."""

    recovered: list[str] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    pruned: Pruned = field(default_factory=Pruned)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sweep(desk: Desk, now: float | None = None) -> Swept:
    """Carry on each run whose lease ran out before ``now`` (the desk's clock), then prune."""
    now = desk.clock() if now is None else now
    recovered, opened, failed = [], [], []
    for run in desk.storage.stale_runs(now, STALE_RUNS):
        try:
            recovery = desk.recover(run.thread)
        except Exception:  # one run that cannot be carried on must not stop the others, nor the prune
            log.exception("the sweep could not carry on run %s", run.id)
            failed.append(run.id)
            continue
        if recovery.carried_on:
            recovered.append(run.id)
        opened += [pause.id for pause in recovery.opened]
    swept = Swept(recovered, opened, failed, desk.storage.prune(now))
    log.info("swept: %s", swept.to_dict())
    return swept


class Sweeper(Repeating):
    """Sweeps a desk every ``every`` seconds in a thread of its own, from the moment it starts until it stops."""

    def __init__(self, desk: Desk, every: float = EVERY) -> None:
        super().__init__(partial(sweep, desk), every, "stalwart-sweep")


def handler(event: Mapping[str, Any], context: object) -> dict[str, Any]:
    """The Lambda entry, run on a schedule: the desk is built once, at cold start, from the environment.  What it
    traced is sent before the invocation ends (``telemetry``)."""
    try:
        return sweep(_cold_start()).to_dict()
    finally:
        telemetry.current().flush()


@cache
def _cold_start() -> Desk:
    from .handlers import FunctionEnvironment
    from .observe import observer_from_environ

    return FunctionEnvironment.from_environ(os.environ).desk(observer_from_environ(os.environ).meter)
