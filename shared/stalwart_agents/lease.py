"""A worker's hold on a running run, renewed in the background while the worker lives.

A run whose lease has run out belongs to a worker that stopped, and another may
carry it on; renewing every third of the lease keeps a slow worker (a tool that
takes minutes) from ever being taken for a dead one.  Every save goes through
the lease, so the renewals and the worker's own saves share one version chain.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType

from .errors import StalwartError, VersionConflict
from .storage.base import Events, RunRecord, Storage


class Lease:
    def __init__(self, store: Storage, run: RunRecord, *, seconds: float, clock: Callable[[], float]) -> None:
        self._store = store
        self._run = run
        self._seconds = seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew_until_stopped, name=f"lease-{run.id}", daemon=True)

    @property
    def run(self) -> RunRecord:
        with self._lock:
            return self._run

    def save(self, run: RunRecord, *, events: Events = ()) -> RunRecord:
        """Compare-and-set ``run`` over the last version this worker saved (or renewed)."""
        with self._lock:
            self._run = self._store.save_run(run, expected_version=self._run.version, events=events)
            return self._run

    def __enter__(self) -> Lease:
        self._renewer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self._stop.set()
        self._renewer.join()

    def _renew_until_stopped(self) -> None:
        """Renew until told to stop or until another worker has the run; a store that fails is tried again."""
        while not self._stop.wait(self._seconds / 3):
            try:
                with self._lock:
                    renewed = self._run.replace(lease_until=self._clock() + self._seconds)
                    self._run = self._store.save_run(renewed, expected_version=self._run.version)
            except VersionConflict:
                return
            except StalwartError:
                continue
