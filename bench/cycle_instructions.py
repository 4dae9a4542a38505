"""Instructions one pause -> approve -> result cycle runs in process, counted by valgrind: ours against another.

On a machine shared with other work, a change of a few percent in the engine's Python is under the noise of any
clock, the CPU's included.  The instructions a cycle runs in user space do not move with the load: each count here
is valgrind's (``cachegrind``, no cache simulated) over a process that runs bench/pause_cycle.py's cycles (a new
thread, order id and amount each), less that of a process that runs one, divided by the difference.  SQLite's
fsync and the kernel's work are not counted: this is the Python and C of the cycle, not its wait.  Each package
runs in a process of its own, the packages in turns, ``--rounds`` times; printed: each one's median instructions
per cycle, the median of per-round ratios, and the load average.  Needs valgrind.

    python bench/cycle_instructions.py [--cycles 150] [--rounds 3] [--before /work/before/shared]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

OURS = Path(__file__).resolve().parent.parent / "shared"
STORES = ("memory", "sqlite")
WORKER = """
import sys, tempfile
from bench.pause_cycle import ORDERS_AGENT, cycles
from stalwart_agents import Desk
store, count = sys.argv[1], int(sys.argv[2])
with tempfile.TemporaryDirectory() as folder:
    url = "memory://" if store == "memory" else f"sqlite:///{folder}/runs.db"
    desk = Desk.from_file(ORDERS_AGENT, storage=url)
    cycles(desk, 30 + count)
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another checkout's shared/ folder, counted in turns with ours")
    args = parser.parse_args()
    packages = {"ours": OURS, **({"before": args.before.resolve()} if args.before else {})}
    print(f"load average before: {load()}")
    counts: dict[tuple[str, str], list[float]] = {(name, store): [] for name in packages for store in STORES}
    for _ in range(args.rounds):
        for store in STORES:
            for name, package in packages.items():
                counts[name, store].append(per_cycle(package, store, args.cycles))
    print(f"load average after : {load()}")
    print(f"a process of {args.cycles + 1} cycles less one of 1, {args.rounds} rounds, the packages in turns")
    for (name, store), counted in counts.items():
        print(f"  {name:6s} {store:6s}: {statistics.median(counted) / 1e6:6.3f} M instructions per cycle (median)")
    if "before" in packages:
        for store in STORES:
            ours, before = counts["ours", store], counts["before", store]
            ratio = statistics.median(o / b for o, b in zip(ours, before, strict=True))
            print(f"{store}, ours / before = {ratio:.3f} (median of per-round ratios)")


def per_cycle(package: Path, store: str, cycles: int) -> float:
    return (instructions(package, store, cycles + 1) - instructions(package, store, 1)) / cycles


def instructions(package: Path, store: str, cycles: int) -> int:
    """What valgrind counts a process that runs ``cycles`` cycles (after 30 to warm up) to run, start to end."""
    environment = {**os.environ, "PYTHONPATH": f"{package}{os.pathsep}{OURS.parent}"}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cachegrind.out"
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}"]
        command += [sys.executable, "-c", WORKER, store, str(cycles)]
        done = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    counted = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if counted is None:
        raise RuntimeError(f"valgrind printed no count: {done.stderr[-500:]}")
    return int(counted[1].replace(",", ""))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
