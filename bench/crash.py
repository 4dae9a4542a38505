"""The crash harness: a worker killed with SIGKILL mid-write, many times, at random points.

Each round starts a worker process that runs a slow payment (the bank's slow_pay:
it writes its ledger line, fsynced, then takes a while), waits until the payment
has really begun, and kills the worker at a random moment before it ends.  Then
a fresh worker (its clock past the dead one's lease) takes the thread's next
turn, which carries the dead run on, and reads what waits: the write must show
as outcome_unknown, and must not have been sent again.  A run paused before the
first kill must still be answerable after the last.

    python bench/crash.py [--kills 100] [--storage sqlite|dynamodb]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from stalwart_agents import Desk, RunWaiting

BANK = Path(__file__).resolve().parent.parent / "tests" / "bank" / "agent.yaml"
SLOW = 0.4
LATER = 3600.0


def _payments(ledger: Path, payee: str) -> int:
    if not ledger.exists():
        return 0
    return sum(1 for line in ledger.read_text().splitlines() if json.loads(line).get("payee") == payee)


def kill_mid_write(url: str, ledger: Path, round_: int, rng: random.Random) -> dict[str, bool]:
    """One round; what the fresh worker found."""
    thread, payee = f"crash-{round_}", f"k{round_}"
    script = (
        "from stalwart_agents import Desk; "
        f"Desk.from_file({str(BANK)!r}, storage={url!r}).send({thread!r}, 'slow pay 5 to {payee}')"
    )
    env = {**os.environ, "STALWART_BANK_LEDGER": str(ledger), "STALWART_BANK_SLOW": str(SLOW)}
    worker = subprocess.Popen([sys.executable, "-c", script], env=env)
    deadline = time.monotonic() + 60
    while _payments(ledger, payee) == 0:
        if time.monotonic() > deadline or worker.poll() is not None:
            raise RuntimeError(f"round {round_}: the payment never began")
        time.sleep(0.01)
    time.sleep(rng.uniform(0, SLOW * 0.9))
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=10)
    fresh = Desk.from_file(BANK, storage=url, clock=lambda: time.time() + LATER)
    with contextlib.suppress(RunWaiting):
        fresh.send(thread, f"balance of {payee}")  # reading only reports: the next turn carries the dead run on
    waiting = fresh.waiting(thread)
    shown = [p.kind for p in waiting] == ["outcome_unknown"]
    sent_again_silently = _payments(ledger, payee) != 1
    if shown:
        fresh.confirm(thread, "happened", waiting=waiting[0].id, token=waiting[0].token)
    fresh.close()
    return {"outcome_unknown_shown": shown, "sent_again_silently": sent_again_silently or _payments(ledger, payee) != 1}


def crash(url: str, kills: int, ledger: Path, seed: int = 7) -> dict[str, int]:
    rng = random.Random(seed)
    desk = Desk.from_file(BANK, storage=url)
    kept = desk.send("kept", "pay 100 to survivor").waiting[0]
    rounds = [kill_mid_write(url, ledger, n, rng) for n in range(kills)]
    survived = (
        desk.waiting("kept") == [kept]
        and desk.confirm("kept", "approve", waiting=kept.id, token=kept.token).status == "done"
    )
    return {
        "kills": kills,
        "outcome_unknown_shown": sum(r["outcome_unknown_shown"] for r in rounds),
        "silent_resends": sum(r["sent_again_silently"] for r in rounds),
        "paused_run_survived": int(survived),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        figures: dict[str, float] = dict(
            crash(f"sqlite:///{folder}/crash.db", args.kills, Path(folder) / "ledger.jsonl")
        )
        figures["seconds"] = round(time.perf_counter() - started, 1)
        print(f"sqlite   : {figures}")


if __name__ == "__main__":
    main()
