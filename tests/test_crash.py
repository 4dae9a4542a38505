"""Workers that die mid-write, and workers that are only slow."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from stalwart_agents import Desk, RunBusy, RunWaiting

from .test_sagas import BANK

LATER = 3600.0


def ledger_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def wait_for(condition, seconds=30.0):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition never held")
        time.sleep(0.02)


@pytest.fixture
def killed_mid_write(tmp_path, monkeypatch):
    """A worker process that journaled a payment `started`, made it, and was killed before `done`."""
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    ledger = tmp_path / "ledger.jsonl"
    monkeypatch.setenv("STALWART_BANK_LEDGER", str(ledger))
    waiting = Desk.from_file(BANK, storage=url).send("other", "pay 100 to cy").waiting[0]
    script = (
        f"from stalwart_agents import Desk; Desk.from_file({str(BANK)!r}, storage={url!r}).send('t', 'pay 5 to ana')"
    )
    worker = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "STALWART_BANK_HANG": "pay"})
    wait_for(lambda: any(line["tool"] == "pay" for line in ledger_lines(ledger)))
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=10)
    return url, ledger, waiting


def test_a_fresh_worker_finds_the_killed_write_uncertain_and_never_sends_it_again(killed_mid_write):
    url, ledger, _ = killed_mid_write
    fresh = Desk.from_file(BANK, storage=url, clock=lambda: time.time() + LATER)

    assert fresh.waiting("t") == []  # reading what waits only reports; the next write carries the run on
    with pytest.raises(RunWaiting) as caught:
        fresh.send("t", "balance of ana")
    [pause] = caught.value.waiting
    assert (pause.kind, pause.tool) == ("outcome_unknown", "pay")
    assert pause.reasons == ["outcome_unknown: the worker stopped mid-call"]
    assert Desk.from_file(BANK, storage=url, clock=lambda: time.time() + LATER).waiting("t") == [pause]

    reply = fresh.confirm("t", "happened", waiting=pause.id, token=pause.token)
    assert reply.status == "done"
    assert [line["tool"] for line in ledger_lines(ledger)] == ["pay"]


def test_a_worker_before_the_lease_runs_out_does_not_take_the_run(killed_mid_write):
    url, _, _ = killed_mid_write
    now = Desk.from_file(BANK, storage=url)
    with pytest.raises(RunBusy):
        now.send("t", "balance of ana")
    assert now.waiting("t") == []


def test_a_run_paused_before_the_crash_survives_it(killed_mid_write):
    url, ledger, waiting = killed_mid_write
    fresh = Desk.from_file(BANK, storage=url)
    assert fresh.waiting("other") == [waiting]
    assert fresh.confirm("other", "approve", waiting=waiting.id, token=waiting.token).status == "done"
    assert [line["payee"] for line in ledger_lines(ledger) if line["tool"] == "pay"] == ["ana", "cy"]


def test_a_slow_worker_keeps_its_run_by_renewing_its_lease(tmp_path, monkeypatch):
    tools = BANK.parent / "tools.py"
    (tmp_path / "agent.yaml").write_text(
        textwrap.dedent(f"""
        storage: sqlite:///runs.db
        settings: {{lease_seconds: 0.3}}
        agents:
          - name: bank
            tools: {tools}
            check: {{confirm_writes: false}}
    """)
    )
    monkeypatch.setenv("STALWART_BANK_SLOW", "1.2")
    slow, other = Desk.from_file(tmp_path / "agent.yaml"), Desk.from_file(tmp_path / "agent.yaml")
    replies = []
    worker = threading.Thread(target=lambda: replies.append(slow.send("t", "slow pay 5 to ana")))
    worker.start()
    time.sleep(0.8)
    with pytest.raises(RunBusy):
        other.send("t", "balance of ana")
    assert other.waiting("t") == []
    worker.join()

    [reply] = replies
    assert reply.status == "done" and reply.waiting == []
    journal = other.storage.journal(reply.run)
    assert [(e.tool, e.status, e.attempt) for e in journal] == [("slow_pay", "done", 1)]


class CountedLease:
    """What the renewer needs of a lease: its period, and a renewal it can count."""

    def __init__(self, period: float) -> None:
        self.period = period
        self.renewed = threading.Event()

    def renew(self) -> bool:
        self.renewed.set()
        return True


def test_a_short_lease_is_renewed_on_time_while_the_renewer_sleeps_for_a_long_one():
    from stalwart_agents.engine.lease import Renewer

    renewer, slow, quick = Renewer(), CountedLease(600.0), CountedLease(0.05)
    renewer.add(slow)
    time.sleep(0.1)
    renewer.add(quick)
    assert quick.renewed.wait(5), "the renewer slept through a lease that fell due before the one it waited for"
    assert not slow.renewed.is_set()
    renewer.remove(slow)
    renewer.remove(quick)
