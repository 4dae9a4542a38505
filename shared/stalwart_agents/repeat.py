"""Work a service repeats in a thread of its own: the sweep, redelivery.

A round that fails is logged and the next one tries again, since a store or a
receiver that is down now may be back by then.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Self

log = logging.getLogger(__name__)


class Repeating:
    """Calls ``work`` every ``every`` seconds in a thread named ``name``, from ``start`` until ``stop``."""

    def __init__(self, work: Callable[[], object], every: float, name: str) -> None:
        self._work, self._every, self._name = work, every, name
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop after the round under way, if one is."""
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._work()
            except Exception:
                log.exception("%s failed; trying again in %g s", self._name, self._every)
            self._stop.wait(self._every)
