"""Round trips to Postgres per step of a pause -> approve -> result cycle, counted through a slow network.

Postgres is usually across a network, where a cycle's cost is its round trips, not its CPU.  This bench puts a
proxy on 127.0.0.1 between the store and a throwaway cluster (tests/postgres.py) that holds every chunk, each way,
for ``--delay`` milliseconds, so one round trip costs twice that.  Each package (``--package``, a checkout's
``shared`` folder; this checkout's by default) runs bench/pause_cycle.py's cycle in a process of its own on a
database of its own, the packages in turns, and each step's median time over ``--cycles`` cycles, divided by the
round trip, is the round trips it waits on (the CPU of a step adds a fraction of one):

- turn: a turn that looks an order up and pauses on the charge (its commit begins the run);
- answer: the approval that claims the pause, runs the charge and saves its outcome (a read of the run, then two
  commits).

    python bench/postgres_round_trips.py [--delay 10] [--cycles 15] [--package /work/before/shared ...]
"""

from __future__ import annotations

import argparse
import os
import queue
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.postgres import Cluster  # noqa: E402


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


class SlowProxy:
    """A TCP proxy that delivers each chunk ``delay`` seconds after it arrived, each way, in order."""

    def __init__(self, target: int, delay: float) -> None:
        self._target, self._delay = target, delay
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            client, _ = self._server.accept()
            server = socket.create_connection(("127.0.0.1", self._target))
            for end in (client, server):
                end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._relay(client, server)
            self._relay(server, client)

    def _relay(self, source: socket.socket, sink: socket.socket) -> None:
        held: queue.Queue[tuple[float, bytes]] = queue.Queue()

        def receive() -> None:
            try:
                while data := source.recv(65536):
                    held.put((time.monotonic() + self._delay, data))
            except OSError:
                pass
            held.put((0.0, b""))

        def deliver() -> None:
            while True:
                due, data = held.get()
                if not data:
                    sink.close()
                    return
                time.sleep(max(0.0, due - time.monotonic()))
                try:
                    sink.sendall(data)
                except OSError:
                    return

        threading.Thread(target=receive, daemon=True).start()
        threading.Thread(target=deliver, daemon=True).start()


WORKER = """
import statistics, sys, time
sys.path.insert(0, {root!r})
from bench.pause_cycle import ORDERS_AGENT, ORDER_IDS
from stalwart_agents import Desk
desk = Desk.from_file(ORDERS_AGENT, storage={url!r})
turns, answers = [], []
for n in range({cycles} + 3):
    number = next(ORDER_IDS)
    started = time.perf_counter()
    reply = desk.send(f"t-{{number}}", f"look up order {{number}} and charge {{number % 400 + 1}} to order {{number}}")
    paused = time.perf_counter()
    pause = reply.waiting[0]
    assert desk.confirm(f"t-{{number}}", "approve", waiting=pause.id, token=pause.token).status == "done"
    if n >= 3:
        turns.append(paused - started)
        answers.append(time.perf_counter() - paused)
print(statistics.median(turns), statistics.median(answers))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=10.0, help="milliseconds each chunk is held, each way")
    parser.add_argument("--cycles", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--package", type=Path, action="append", help="a checkout's shared/ folder (repeatable)")
    args = parser.parse_args()
    packages = [path.resolve() for path in args.package or [ROOT / "shared"]]
    trip = 2 * args.delay / 1000
    print(f"load average before: {load()}")
    cluster = Cluster()
    cluster.start()
    try:
        proxies = {}
        for n, package in enumerate(packages):
            url = cluster.create_database(f"trips{n}")
            port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
            proxies[package] = url.replace(f":{port}/", f":{SlowProxy(port, args.delay / 1000).port}/")
        steps: dict[Path, list[tuple[float, float]]] = {package: [] for package in packages}
        for _ in range(args.rounds):
            for package in packages:
                code = WORKER.format(root=str(ROOT), url=proxies[package], cycles=args.cycles)
                environment = {**os.environ, "PYTHONPATH": str(package)}
                out = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True)
                if out.returncode:
                    raise SystemExit(out.stderr)
                turn, answer = map(float, out.stdout.split())
                steps[package].append((turn, answer))
    finally:
        cluster.stop()
        cluster.remove()
    print(f"load average after : {load()}")
    print(f"one round trip: {trip * 1000:g} ms; median of {args.rounds} runs of {args.cycles} cycles")
    for package, runs in steps.items():
        turn = statistics.median(run[0] for run in runs) / trip
        answer = statistics.median(run[1] for run in runs) / trip
        print(f"{package}: turn {turn:.1f} round trips, answer {answer:.1f}")


if __name__ == "__main__":
    main()
