"""The race harness: N paused threads, two worker processes answering each pause at the same moment.

Each worker is its own process with its own Desk on the same storage; for every
pause both wait on one barrier, then approve it with its token.  Executions are
counted from the tools' own side effects (the bank's ledger file, one line per
payment, fsynced), never from what the workers report.

    python bench/race.py [--pauses 1000] [--backends sqlite,postgres,dynamodb]
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

from stalwart_agents import Desk, InterruptStale, RunBusy

ROOT = Path(__file__).resolve().parent.parent
BANK = ROOT / "tests" / "bank" / "agent.yaml"


def _worker(url: str, pauses: list[tuple[str, str, str]], barrier, results) -> None:
    desk = Desk.from_file(BANK, storage=url)
    for thread, pause_id, token in pauses:
        barrier.wait(timeout=60)
        try:
            desk.confirm(thread, "approve", waiting=pause_id, token=token)
            results.put((thread, "ok"))
        except InterruptStale:
            results.put((thread, "stale"))
        except RunBusy:
            results.put((thread, "busy"))


def race(url: str, pauses: int, ledger: Path) -> dict[str, int]:
    """Pause ``pauses`` threads, race two processes on each; what the ledger and the workers say happened."""
    os.environ["STALWART_BANK_LEDGER"] = str(ledger)
    desk = Desk.from_file(BANK, storage=url)
    paused = []
    for n in range(pauses):
        pause = desk.send(f"race-{n}", f"pay 100 to p{n}").waiting[0]
        paused.append((f"race-{n}", pause.id, pause.token))
    desk.close()
    spawn = multiprocessing.get_context("spawn")
    barrier, results = spawn.Barrier(2), spawn.Queue()
    workers = [spawn.Process(target=_worker, args=(url, paused, barrier, results)) for _ in range(2)]
    for worker in workers:
        worker.start()
    answers = collections.Counter(results.get(timeout=120) for _ in range(2 * pauses))
    for worker in workers:
        worker.join(timeout=60)
    paid = collections.Counter(json.loads(line)["payee"] for line in ledger.read_text().splitlines() if '"pay"' in line)
    return {
        "races": pauses,
        "one_winner": sum(1 for n in range(pauses) if answers[(f"race-{n}", "ok")] == 1),
        "refused_stale": sum(count for (_, outcome), count in answers.items() if outcome == "stale"),
        "executed_once": sum(1 for n in range(pauses) if paid[f"p{n}"] == 1),
        "executed_twice_or_more": sum(1 for count in paid.values() if count > 1),
        "never_executed": sum(1 for n in range(pauses) if paid[f"p{n}"] == 0),
    }


def _backend_url(name: str, folder: Path, stack: list) -> str:
    if name == "sqlite":
        return f"sqlite:///{folder / 'race.db'}"
    if name == "dynamodb":
        from stalwart_agents.aws.local import start_moto

        for variable, value in (
            ("AWS_ACCESS_KEY_ID", "x"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
            ("AWS_DEFAULT_REGION", "us-east-1"),
        ):
            os.environ.setdefault(variable, value)
        server, endpoint = start_moto()
        stack.append(server.stop)
        return f"dynamodb://race?region=us-east-1&endpoint={endpoint}"
    sys.path.insert(0, str(ROOT))
    from tests.postgres import Cluster

    cluster = Cluster()
    cluster.start()
    stack.append(cluster.stop)
    cluster.create_database("race")
    return cluster.url("race")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pauses", type=int, default=1000)
    parser.add_argument("--backends", default="sqlite,postgres,dynamodb")
    args = parser.parse_args()
    for name in args.backends.split(","):
        stack: list = []
        with tempfile.TemporaryDirectory() as folder:
            try:
                url = _backend_url(name, Path(folder), stack)
                started = time.perf_counter()
                figures: dict[str, float] = dict(race(url, args.pauses, Path(folder) / "ledger.jsonl"))
                figures["seconds"] = round(time.perf_counter() - started, 1)
                print(f"{name:9}: {figures}")
            finally:
                for stop in reversed(stack):
                    stop()


if __name__ == "__main__":
    main()
