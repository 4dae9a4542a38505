"""Where a turn + answer cycle goes in the server, over HTTP: the CPU of each of its threads, and a profile by part.

The service ``stalwart serve`` runs (``make_app`` over bench/orders, a SQLite file), served as it serves it
(uvicorn, h11 with headers bounded, one worker) in this process, driven by a client in a process of its own
(``http_throughput.py``'s cycles: a new thread and order each, one kept-alive connection, the session sent back).
After warming up, ``--cycles`` cycles run unprofiled while each thread's CPU is taken: the event loop's, and the
worker thread's, split between the Desk's moves (its send, answer and admit) and the rest of the route.  Then
cProfile records as many cycles in the event loop's thread and, around each call a route hands to a worker thread,
in that thread.  Each function's own time goes to one part by the file it is in (a built-in's,
or the standard library's, to its callers' parts, in proportion): the HTTP server (uvicorn, h11), the event loop
(asyncio; its wait for the sockets left out), FastAPI and Starlette (middleware, routing, the response), the edge's
one pass (crossing, boundary, session), the hop to a worker thread (anyio), the route's own work (the body read and
parsed, the admission, the cards, the encoding, the stream ticket) and the Desk's move (its send, answer and admit,
with everything under them: engine, store, SQLite).  cProfile slows Python more than C, so the Python parts read
high.  The load average is printed.

    python bench/http_profile.py [--cycles 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import uvicorn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import stalwart_agents.http.threads as routes  # noqa: E402
from bench.http_throughput import ORDERS_AGENT  # noqa: E402
from stalwart_agents.http.app import MAX_HEADERS  # noqa: E402
from stalwart_agents.serve import make_app  # noqa: E402
from tests.server import free_port  # noqa: E402

CLIENT = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from bench.http_throughput import cycles
    from tests.server import wait_until_healthy
    wait_until_healthy(f"http://127.0.0.1:{sys.argv[2]}")
    measure = cycles(int(sys.argv[2]))
    for line in sys.stdin:
        count, prefix = line.split()
        print(measure(int(count), prefix), flush=True)
""")
"""The client: told a count and a prefix, runs that many cycles and prints their rate."""
MODES = ("warm", "timed", "profiled")
"""What the server's threads are watched for while the client runs each batch of cycles: nothing, CPU, a profile."""

LOOP_PARTS = (
    ("HTTP server (uvicorn, h11)", ("/uvicorn/", "/h11/")),
    ("edge (crossing, boundary, session)", ("/http/crossing.py", "/http/boundary.py", "/http/session.py")),
    ("thread hop (anyio)", ("/anyio/", "/sniffio/", "/starlette/concurrency.py")),
    ("FastAPI, Starlette", ("/fastapi/", "/starlette/")),
    ("route (its async part)", ("/stalwart_agents/",)),
)
"""Parts of the event loop's thread, by the file a function is in; anything else is the event loop's."""
IDLE = ("select.epoll", "run_forever", "run_until_complete")
"""The loop's wait for its sockets (asyncio's epoll, or uvloop's own loop): idle, not the service's time."""
DESK_MOVES = {("desk.py", "send"), ("desk.py", "answer"), ("desk.py", "admit")}
STDLIB = str(Path(os.__file__).parent)

Function = tuple[str, int, str]


def loop_part(file: str) -> str:
    return next((part for part, places in LOOP_PARTS if any(place in file for place in places)), "event loop")


def by_part(stats: pstats.Stats) -> dict[str, float]:
    """Own seconds by part, a built-in's and the standard library's going to their callers' parts, in proportion."""
    table: dict[Function, Any] = stats.stats  # type: ignore[attr-defined]
    shares: dict[Function, dict[str, float]] = {}

    def share(function: Function, seen: frozenset[Function]) -> dict[str, float]:
        """How a second of ``function``'s own time divides among the parts."""
        if function not in shares:
            file, callers = function[0], table.get(function, (0, 0, 0, 0, {}))[4]
            inherited = (file == "~" or file.startswith(STDLIB)) and "site-packages" not in file
            if not inherited or not callers or function in seen:
                shares[function] = {loop_part(file): 1.0}
            else:
                called = sum(edge[2] for edge in callers.values())
                mixed: dict[str, float] = defaultdict(float)
                for caller, edge in callers.items():
                    portion = edge[2] / called if called else 1 / len(callers)
                    for part, weight in share(caller, seen | {function}).items():
                        mixed[part] += weight * portion
                shares[function] = mixed
        return shares[function]

    seconds: dict[str, float] = defaultdict(float)
    for function, (_, _, own, _, _) in table.items():
        if function[0] == "~" and any(idle in function[2] for idle in IDLE):
            continue
        for part, weight in share(function, frozenset()).items():
            seconds[part] += own * weight
    return seconds


def desk_seconds(stats: pstats.Stats) -> float:
    """The time under the Desk's moves: send, answer, admit (none calls another)."""
    found = stats.stats.items()  # type: ignore[attr-defined]
    return sum(total for (file, _, name), (_, _, _, total, _) in found if (Path(file).name, name) in DESK_MOVES)


class Watched:
    """The server's threads, watched in one mode at a time: each thread's CPU (``timed``), or a cProfile for the
    event loop's thread and one for each worker thread a route hands a call to (``profiled``)."""

    def __init__(self) -> None:
        self.mode = "warm"
        self.cpu: dict[str, float] = defaultdict(float)
        self.loop = cProfile.Profile()
        self.loop_started = 0.0
        self.workers: dict[int, cProfile.Profile] = {}
        self.hop = getattr(routes, "run_in_threadpool")  # noqa: B009 (the name the routes hand calls to)

    async def handed(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await self.hop(partial(self.in_worker, call), *args, **kwargs)

    def in_worker(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.mode == "profiled":
            profile = self.workers.setdefault(threading.get_ident(), cProfile.Profile())
            return profile.runcall(call, *args, **kwargs)
        return self.timed("worker", call, *args, **kwargs)

    def timed(self, part: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.mode != "timed":
            return call(*args, **kwargs)
        started = time.thread_time()
        try:
            return call(*args, **kwargs)
        finally:
            self.cpu[part] += time.thread_time() - started

    def switch(self, mode: str) -> None:
        """In the event loop's thread: from one mode to the next."""
        if self.mode == "timed":
            self.cpu["loop"] += time.thread_time() - self.loop_started
        if self.mode == "profiled":
            self.loop.disable()
        self.mode = mode
        if mode == "timed":
            self.loop_started = time.thread_time()
        if mode == "profiled":
            self.loop.enable()

    def worker_stats(self) -> pstats.Stats | None:
        profiles = list(self.workers.values())
        return pstats.Stats(*profiles) if profiles else None


def serve(port: int, storage: str, watched: Watched, count: int) -> dict[str, float]:
    """Serve while the client runs ``count`` cycles in each mode; their rates (per second)."""
    setattr(routes, "run_in_threadpool", watched.handed)  # noqa: B010
    app = make_app(ORDERS_AGENT, storage=storage)
    desk = app.state.desk
    for move in ("send", "answer", "admit"):
        setattr(desk, move, partial(watched.timed, "desk", getattr(desk, move)))
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        http="h11",
        h11_max_incomplete_event_size=MAX_HEADERS,
    )
    server = uvicorn.Server(config)
    rates: dict[str, float] = {}

    def drive(loop: asyncio.AbstractEventLoop) -> None:
        command = [sys.executable, "-c", CLIENT, str(ROOT), str(port)]
        client = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert client.stdin is not None and client.stdout is not None
        try:
            for mode in MODES:
                loop.call_soon_threadsafe(watched.switch, mode)
                client.stdin.write(f"{count if mode != 'warm' else 100} {mode}\n")
                client.stdin.flush()
                rates[mode] = float(client.stdout.readline())
            loop.call_soon_threadsafe(watched.switch, "warm")
        finally:
            client.stdin.close()
            client.wait(timeout=60)
            server.should_exit = True

    async def run() -> None:
        threading.Thread(target=drive, args=(asyncio.get_running_loop(),), daemon=True).start()
        await server.serve()

    with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:  # uvloop where installed, as uvicorn.run
        runner.run(run())
    setattr(routes, "run_in_threadpool", watched.hop)  # noqa: B010
    return rates


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=1000)
    args = parser.parse_args()
    count = args.cycles
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    watched = Watched()
    with tempfile.TemporaryDirectory() as folder:
        rates = serve(free_port(), f"sqlite:///{folder}/runs.db", watched, count)
    print(f"load average after : {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    cpu = {part: 1000 * seconds / count for part, seconds in watched.cpu.items()}
    print(f"{count} cycles unprofiled ({rates['timed']:.0f} cycles/s); CPU per cycle (a turn and its answer):")
    print(f"  the event loop's thread                  {cpu['loop']:7.3f} ms")
    print(f"  a worker thread: the route               {cpu['worker'] - cpu['desk']:7.3f} ms")
    print(f"  a worker thread: the Desk's move         {cpu['desk']:7.3f} ms")
    parts = by_part(pstats.Stats(watched.loop))
    worker = watched.worker_stats()
    if worker is not None:
        desk = desk_seconds(worker)
        routed = sum(own for (_, _, own, _, _) in worker.stats.values())  # type: ignore[attr-defined]
        parts["route (in its worker thread)"] = routed - desk
        parts["the Desk's move (engine, store, SQLite)"] = desk
    total = sum(parts.values())
    print(f"{count} cycles profiled ({rates['profiled']:.0f} cycles/s); per cycle, by part (wall time in each thread):")
    for part, own in sorted(parts.items(), key=lambda item: -item[1]):
        print(f"  {part:40} {1000 * own / count:7.3f} ms  {100 * own / total:5.1f}%")
    print(f"  {'in all':40} {1000 * total / count:7.3f} ms")


if __name__ == "__main__":
    main()
