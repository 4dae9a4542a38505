"""`stalwart prune`, run as a user runs it: finished threads idle past the retention go, and nothing that waits."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid

import pytest

from stalwart_agents import Desk
from stalwart_agents.storage import open_storage

from .test_sagas import BANK

DAY = 86400.0


def prune(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "stalwart_agents", "prune", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.fixture(params=["sqlite", "postgres"])
def url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'runs.db'}"
    return request.getfixturevalue("postgres_cluster").create_database(f"p_{uuid.uuid4().hex}")


@pytest.fixture
def threads(url, tmp_path, monkeypatch):
    """Two threads last active 40 days ago: one finished ("done"), one whose payment waits ("waiting")."""
    monkeypatch.setenv("STALWART_BANK_LEDGER", str(tmp_path / "ledger.jsonl"))
    store = open_storage(url)
    store.clock = lambda: time.time() - 40 * DAY
    with Desk.from_file(BANK, storage=store) as desk:
        assert desk.send("done", "pay 5 to ana").status == "done"
        [waiting] = desk.send("waiting", "pay 100 to cy").waiting
    return waiting


def stored(url: str, thread: str) -> bool:
    store = open_storage(url)
    try:
        return store.last_run(thread) is not None or store.events(thread) != []
    finally:
        store.close()


def test_prune_removes_finished_threads_and_never_a_waiting_one(url, threads):
    done = prune("--storage", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("stalwart prune: removed 1 thread and 0 old records (")
    assert not stored(url, "done") and stored(url, "waiting")
    with Desk.from_file(BANK, storage=url) as desk:
        assert desk.waiting("waiting") == [threads]
        assert desk.confirm("waiting", "approve", waiting=threads.id, token=threads.token).status == "done"


def test_a_dry_run_says_what_it_would_remove_and_removes_nothing(url, threads):
    dry = prune("--storage", url, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith("stalwart prune: would remove 1 thread and 0 old records (")
    assert stored(url, "done") and stored(url, "waiting")


def test_a_longer_retention_keeps_the_finished_thread(url, threads):
    kept = prune("--storage", url, "--retention-days", "50")
    assert kept.returncode == 0 and "removed 0 threads" in kept.stdout and "50 days" in kept.stdout
    assert stored(url, "done")


def test_the_retention_and_storage_come_from_the_agent_file(tmp_path, threads, url):
    config = tmp_path / "agent.yaml"
    config.write_text(
        BANK.read_text()
        .replace("storage: memory://", f"storage: {url}")
        .replace("settings:\n", "settings:\n  retention_days: 45\n")
    )
    (tmp_path / "tools.py").write_text((BANK.parent / "tools.py").read_text())
    assert "removed 0 threads" in prune(str(config)).stdout and stored(url, "done")
    assert "removed 1 thread " in prune(str(config), "--retention-days", "35").stdout and not stored(url, "done")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "name the store to prune: an agent.yaml, or --storage URL"),
        (("--storage", "sqlite:///x.db", "--retention-days", "0"), "a number of days from 0.042 (an hour) to 36500"),
        (
            ("--storage", "sqlite:///x.db", "--retention-days", "1e-300"),
            "a number of days from 0.042 (an hour) to 36500",
        ),
        (("--storage", "sqlite:///x.db", "--dry-run"), "there is no SQLite store at"),
        (("--storage", "memory://"), "a memory:// store lives inside one process"),
        (("--storage", "sqlite:///x.db", "--retention-days", "soon"), "not 'soon'"),
        (("--storage", "mysql://db"), "unknown storage scheme 'mysql'"),
        (("no-such-agent.yaml",), "there is no config file at"),
    ],
)
def test_bad_input_is_refused_with_a_sentence_and_exit_code_2(args, said, tmp_path):
    refused = subprocess.run(
        [sys.executable, "-m", "stalwart_agents", "prune", *args], capture_output=True, text=True, cwd=tmp_path
    )
    assert refused.returncode == 2 and said in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "x.db").exists()


class PrunedMidway:
    """A store that prunes (and lets ``meanwhile`` act) right after the Desk reads a thread's owner: a prune in
    another process landing between a person being let in and their turn's commit."""

    def __init__(self, store, meanwhile=lambda: None):
        self._store, self._meanwhile, self.armed = store, meanwhile, False

    def owner(self, thread):
        stored = self._store.owner(thread)
        if self.armed:
            self.armed = False
            self._store.prune(time.time())
            self._meanwhile()
        return stored

    def __getattr__(self, name):
        return getattr(self._store, name)


@pytest.mark.parametrize("bob_comes", [False, True])
def test_a_prune_between_letting_a_person_in_and_their_turn_never_hands_the_thread_to_another(
    url, tmp_path, monkeypatch, bob_comes
):
    monkeypatch.setenv("STALWART_BANK_LEDGER", str(tmp_path / "ledger.jsonl"))
    store = open_storage(url)
    store.clock = lambda: time.time() - 40 * DAY
    with Desk.from_file(BANK, storage=store) as old:
        assert old.send("t", "pay 5 to ana", owner="alice").status == "done"
    store = open_storage(url)  # the Desk closed the first when it was done
    racing = PrunedMidway(store)
    with Desk.from_file(BANK, storage=racing) as desk:
        racing._meanwhile = (lambda: desk.enter("t", "bob", start=True)) if bob_comes else (lambda: None)
        racing.armed = True
        thread = desk.enter("t", "alice", start=True)
        [waiting] = desk.send("t", "pay 100 to cy", owner="alice").waiting
        assert desk.enter("t", "alice") == thread and desk.waiting(thread) == [waiting]
        if bob_comes:
            assert desk.enter("t", "bob") != thread  # his own "t", begun meanwhile: nothing of hers
        assert "pay 5 to ana" not in str(desk.events(thread))  # the old thread went whole: nothing of it is read
