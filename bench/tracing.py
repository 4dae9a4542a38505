"""What OpenTelemetry costs the pause cycle: off, on, and the cycle without the hooks at all.

Three worker processes run the same cycle (bench/pause_cycle.py's, on memory:// so the store hides nothing):
``off`` (this checkout, no OTEL_* variable), ``on`` (this checkout, OTEL_EXPORTER_OTLP_ENDPOINT at a sink on
127.0.0.1 that takes every export: the SDK's batching span processor, periodic metric reader and OTLP/HTTP
exporter, as a served process runs them) and ``bare`` (the package as it was before telemetry, ``--bare`` commit,
taken out of git into a temporary folder).  They run short blocks in turns, rotating who goes first each round;
printed are the load average, each one's median rate, and the median of the per-round ratios.

    python bench/tracing.py [--rounds 15] [--cycles 100] [--bare 02dd8cf]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDERS_AGENT = ROOT / "bench" / "orders" / "agent.yaml"
WORKER = """
import itertools, sys, time
from stalwart_agents import Desk
desk = Desk.from_file({agent!r}, storage="memory://")
orders = itertools.count(100_000)
print("ready", flush=True)
for line in sys.stdin:
    cycles, started = int(line), time.perf_counter()
    for n in range(cycles):
        number = next(orders)
        thread = f"t-{{number}}"
        reply = desk.send(thread, f"look up order {{number}} and charge {{number % 400 + 1}} to order {{number}}")
        pause = reply.waiting[0]
        assert desk.confirm(thread, "approve", waiting=pause.id, token=pause.token).status == "done"
    print(cycles / (time.perf_counter() - started), flush=True)
"""


class Worker:
    def __init__(self, shared: Path, environ: dict[str, str]) -> None:
        command = [sys.executable, "-c", WORKER.format(agent=str(ORDERS_AGENT))]
        env = environ | {"PYTHONPATH": str(shared)}
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        assert self._line() == "ready"

    def _line(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def rate(self, cycles: int) -> float:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{cycles}\n")
        self.process.stdin.flush()
        return float(self._line())

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@contextmanager
def sink() -> Iterator[str]:
    """An OTLP/HTTP endpoint on 127.0.0.1 that takes every export and keeps nothing."""

    class Taking(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Taking)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def bare_package(commit: str, folder: Path) -> Path:
    """The package's ``shared`` folder as it was at ``commit``, before telemetry."""
    archive = subprocess.run(["git", "archive", commit, "shared"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder / "shared"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--bare", default="02dd8cf", help="the commit before telemetry")
    args = parser.parse_args()
    quiet = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")} | {"PYTHONHASHSEED": "0"}
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder, sink() as endpoint:
        workers = {
            "off": Worker(ROOT / "shared", quiet),
            "on": Worker(ROOT / "shared", quiet | {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}),
            "bare": Worker(bare_package(args.bare, Path(folder)), quiet),
        }
        for worker in workers.values():
            worker.rate(args.cycles)  # warm: imports, caches, the first pages of memory
        rates: dict[str, list[float]] = {name: [] for name in workers}
        names = list(workers)
        for round_ in range(args.rounds):
            for name in names[round_ % 3 :] + names[: round_ % 3]:
                rates[name].append(workers[name].rate(args.cycles))
        for worker in workers.values():
            worker.stop()
    print(f"load average after : {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"rounds: {args.rounds}, cycles per block: {args.cycles}, store: memory://")
    for name, measured in rates.items():
        print(f"{name:5}: {statistics.median(measured):8.1f} cycles/s (median)")
    for a, b in (("off", "bare"), ("on", "off")):
        ratio = statistics.median(x / y for x, y in zip(rates[a], rates[b], strict=True))
        print(f"{a} / {b} = {ratio:.3f} (median of per-round ratios)")


if __name__ == "__main__":
    main()
