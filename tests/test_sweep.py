"""The sweep: a run whose worker died is carried on though nobody comes, and reads never do it themselves."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import httpx
import pytest

from stalwart_agents import Desk
from stalwart_agents.aws import sweep as sweeping
from stalwart_agents.aws.sweep import Sweeper, sweep
from stalwart_agents.serve import make_app
from stalwart_agents.storage import open_storage

from .conftest import delivery_of, present
from .server import serving, stalwart_serve
from .test_crash import ledger_lines, wait_for
from .test_sagas import BANK

DAY = 86400.0
WRITES = ("commit", "own", "secret", "rate_message", "note_delivery", "claim_delivery", "prune")


@pytest.fixture
def bank(tmp_path, monkeypatch):
    """The bank with one-second leases, its SQLite store and its ledger of what was really paid."""
    config = tmp_path / "agent.yaml"
    config.write_text(BANK.read_text().replace("settings:\n", "settings:\n  lease_seconds: 1.0\n"))
    (tmp_path / "tools.py").write_text((BANK.parent / "tools.py").read_text())
    monkeypatch.setenv("STALWART_BANK_LEDGER", str(tmp_path / "ledger.jsonl"))
    return config, f"sqlite:///{tmp_path / 'runs.db'}", tmp_path / "ledger.jsonl"


@pytest.fixture
def stale(bank):
    """A worker killed after it made a payment and before it wrote it down, its lease since run out: the run id."""
    config, url, ledger = bank
    script = (
        f"from stalwart_agents import Desk; Desk.from_file({str(config)!r}, storage={url!r}).send('t', 'pay 5 to ana')"
    )
    worker = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "STALWART_BANK_HANG": "pay"})
    wait_for(lambda: any(line["tool"] == "pay" for line in ledger_lines(ledger)))
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=10)
    store = open_storage(url)
    wait_for(lambda: store.stale_runs(time.time()) != [])
    [run] = store.stale_runs(time.time())
    store.close()
    return run.id


def test_a_sweep_carries_on_a_dead_workers_run_and_announces_the_pause_it_opens(bank, stale):
    config, url, ledger = bank
    told = []
    with Desk.from_file(config, storage=url, on_interrupt=lambda thread, pause: told.append((thread, pause))) as desk:
        swept = sweep(desk)
        [pause] = desk.waiting("t")
        assert (swept.recovered, swept.opened, swept.failed) == ([stale], [pause.id], [])
        assert (pause.kind, pause.tool) == ("outcome_unknown", "pay")
        assert [(thread, p.id) for thread, p in told] == [("t", pause.id)]
        assert delivery_of(desk.storage, pause.id)["delivered"] is True
        assert desk.storage.stale_runs(time.time() + 60) == []
        assert sweep(desk).recovered == []
    assert [line["tool"] for line in ledger_lines(ledger)] == ["pay"]


class Counting:
    """A store that notes every call that could write, and hands everything to the real one."""

    def __init__(self, store):
        self.store, self.writes = store, []

    def __getattr__(self, name):
        attribute = getattr(self.store, name)
        if name not in WRITES:
            return attribute

        def counted(*args, **kwargs):
            self.writes.append(name)
            return attribute(*args, **kwargs)

        return counted


def committed_since(db: sqlite3.Connection, version: list[int]) -> bool:
    """Whether another connection committed to the file since the last look (SQLite's data_version)."""
    now = db.execute("PRAGMA data_version").fetchone()[0]
    changed, version[:] = now != version[0], [now]
    return changed


class Gated:
    """A store whose first snapshot waits for the other worker's, so both read the stale run before either moves it."""

    def __init__(self, store, gate: threading.Barrier):
        self.store, self._gate, self._waited = store, gate, False

    def __getattr__(self, name):
        return getattr(self.store, name)

    def snapshot(self, run_id):
        if not self._waited:
            self._waited = True
            self._gate.wait(timeout=30)
        return self.store.snapshot(run_id)


def test_two_sweeps_racing_on_one_stale_run_announce_its_pause_once(bank, stale):
    config, url, ledger = bank
    gate, told, swept = threading.Barrier(2), [], {}
    desks = [
        Desk.from_file(config, storage=Gated(open_storage(url), gate), on_interrupt=lambda t, p: told.append(p.id))
        for _ in range(2)
    ]
    workers = [threading.Thread(target=lambda d=desk: swept.update({d: sweep(d)})) for desk in desks]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    [pause] = desks[0].waiting("t")
    assert told == [pause.id]
    assert sorted(s.recovered for s in swept.values()) == [[], [stale]]
    assert sorted(s.opened for s in swept.values()) == [[], [pause.id]]
    assert [line["tool"] for line in ledger_lines(ledger)] == ["pay"]
    for desk in desks:
        desk.close()


def test_reading_a_thread_whose_worker_died_writes_nothing(bank, stale):
    config, url, _ = bank
    store = Counting(open_storage(url))
    desk = Desk.from_file(config, storage=store)
    app = make_app(desk, stream_mode="once")
    store.writes.clear()
    watch = sqlite3.connect(url[len("sqlite:///") :])
    version = [watch.execute("PRAGMA data_version").fetchone()[0]]
    with serving(app) as base:
        waiting = httpx.get(f"{base}/threads/t/interrupts")
        streamed = httpx.get(f"{base}/threads/t/stream")
    assert waiting.status_code == 200 and waiting.json()["waiting"] == []
    assert streamed.status_code == 200 and '"type": "turn"' in streamed.text.replace('":"', '": "')
    assert store.writes == [] and not committed_since(watch, version)
    assert present(desk.storage.get_run(stale)).status == "running"
    desk.recover("t")  # what the sweep does: now the store is written
    assert "commit" in store.writes and committed_since(watch, version)
    desk.close()
    watch.close()


def test_a_sweep_prunes_what_the_retention_lets_go(bank):
    config, url, _ = bank
    store = open_storage(url, retention=30 * DAY)
    store.clock = lambda: time.time() - 40 * DAY
    with Desk.from_file(config, storage=store) as desk:
        desk.send("old", "pay 5 to ana")
        [waiting] = desk.send("waits", "pay 100 to cy").waiting
        assert sweep(desk).pruned.threads == 1
        assert desk.storage.last_run("old") is None and desk.waiting("waits") == [waiting]


def test_the_sweep_function_is_built_from_the_functions_environment(bank, stale, monkeypatch):
    config, url, _ = bank
    monkeypatch.setenv("STALWART_CONFIG", str(config))
    monkeypatch.setenv("STALWART_STORAGE", url)
    sweeping._cold_start.cache_clear()
    try:
        swept = sweeping.handler({"source": "aws.events"}, None)
        assert swept["recovered"] == [stale] and len(swept["opened"]) == 1 and swept["failed"] == []
        assert sweeping.handler({}, None)["recovered"] == [] and sweeping._cold_start.cache_info().misses == 1
    finally:
        sweeping._cold_start.cache_clear()


def test_a_sweeper_sweeps_in_the_background_until_stopped(bank, stale):
    config, url, _ = bank
    with Desk.from_file(config, storage=url) as desk:
        sweeper = Sweeper(desk, every=3600).start()
        wait_for(lambda: desk.waiting("t") != [])
        sweeper.stop()
        assert not sweeper._thread.is_alive()


def test_stalwart_serve_sweeps_on_its_own(bank, stale):
    config, url, _ = bank
    with stalwart_serve(config, "--storage", url) as (base, process):
        wait_for(lambda: httpx.get(f"{base}/threads/t/interrupts").json()["waiting"] != [])
    output = present(process.stdout).read()
    assert process.returncode == -signal.SIGTERM and "Traceback" not in output and "sweep failed" not in output
