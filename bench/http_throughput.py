"""Turn + resume cycles per second over HTTP, against a bare FastAPI route on the same storage; and webhook latency.

The service runs as `stalwart serve` in its own process (uvicorn, one worker); the
client here keeps one connection.  A cycle is a turn that pauses on a charge and
the resume that runs it.  The baseline is a bare FastAPI route, also under uvicorn
in its own process, doing one conditional insert per request on a SQLite file in
WAL with synchronous=FULL, like ours.  Webhook latency is the time from sending a
turn to the signed delivery of its pause reaching a receiver on 127.0.0.1.

    python bench/http_throughput.py [--cycles 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import httpx
from fastapi import FastAPI, Request

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"
sys.path.insert(0, str(ROOT))

from tests.server import free_port, serving, wait_until_healthy  # noqa: E402

BARE = textwrap.dedent("""
    import sqlite3, sys, threading
    from fastapi import FastAPI
    app, local = FastAPI(), threading.local()
    def db():
        if not hasattr(local, "c"):
            local.c = sqlite3.connect(sys.argv[1], isolation_level=None, check_same_thread=False)
            local.c.execute("PRAGMA journal_mode=WAL"); local.c.execute("PRAGMA synchronous=FULL")
            local.c.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, body TEXT)")
        return local.c
    @app.get("/healthz")
    def healthz(): return {"ok": True}
    @app.post("/insert/{key}")
    def insert(key: str):
        c = db(); c.execute("BEGIN IMMEDIATE")
        done = c.execute("INSERT INTO t VALUES (?, '{}') ON CONFLICT DO NOTHING", (key,)).rowcount
        c.execute("COMMIT"); return {"inserted": done}
    import uvicorn; uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
""")


def serve(command: list[str], port: int) -> subprocess.Popen:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until_healthy(f"http://127.0.0.1:{port}")
    return process


def cycles(base: str, count: int, prefix: str) -> float:
    with httpx.Client(base_url=base, timeout=30) as client:
        started = time.perf_counter()
        for n in range(count):
            pause = client.post(f"/threads/{prefix}-{n}/messages", json={"text": "charge 40 to order 4411"}).json()["waiting"][0]
            body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
            assert client.post(f"/threads/{prefix}-{n}/resume", json=body).status_code == 200
        return count / (time.perf_counter() - started)


def inserts(base: str, count: int, prefix: str) -> float:
    with httpx.Client(base_url=base, timeout=30) as client:
        started = time.perf_counter()
        for n in range(count):
            client.post(f"/insert/{prefix}-{n}")
        return count / (time.perf_counter() - started)


def webhook_latency(count: int, folder: Path) -> list[float]:
    from stalwart_agents import Webhook
    from stalwart_agents.serve import make_app

    arrived: dict[str, float] = {}
    receiver = FastAPI()

    @receiver.post("/hook")
    async def hook(request: Request):
        arrived[(await request.json())["thread"]] = time.perf_counter()
        return {"ok": True}

    latencies = []
    with serving(receiver) as hook_url:
        app = make_app(SHOP, storage=f"sqlite:///{folder / 'hook.db'}", on_interrupt=Webhook(f"{hook_url}/hook", "whsec-bench"))
        with serving(app) as base, httpx.Client(base_url=base, timeout=30) as client:
            for n in range(count):
                sent = time.perf_counter()
                answer = client.post(f"/threads/w-{n}/messages", json={"text": "charge 40 to order 4411"}).json()
                if answer.get("not_notified") or not answer.get("waiting"):
                    raise RuntimeError(f"the pause was not posted: {answer}")
                while f"w-{n}" not in arrived:
                    time.sleep(0.001)
                latencies.append(arrived[f"w-{n}"] - sent)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        ours_port, bare_port = free_port(), free_port()
        ours = serve([sys.executable, "-m", "stalwart_agents", "serve", str(SHOP), "--port", str(ours_port), "--storage", f"sqlite:///{folder}/runs.db"], ours_port)
        bare = serve([sys.executable, "-c", BARE, f"{folder}/bare.db", str(bare_port)], bare_port)
        try:
            ours_rates = [cycles(f"http://127.0.0.1:{ours_port}", args.cycles, f"r{run}") for run in range(args.runs)]
            bare_rates = [inserts(f"http://127.0.0.1:{bare_port}", args.cycles, f"r{run}") for run in range(args.runs)]
        finally:
            ours.terminate()
            bare.terminate()
        latencies = webhook_latency(50, Path(folder))
    ours_rate, bare_rate = statistics.median(ours_rates), statistics.median(bare_rates)
    print(f"sqlite turn+resume cycles : {ours_rate:7.1f} /s (median of {args.runs} x {args.cycles})")
    print(f"bare conditional insert   : {bare_rate:7.1f} /s")
    print(f"ratio                     : {ours_rate / bare_rate:.2f}")
    print(f"pause -> webhook received : p50 {statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms (50 pauses)")


if __name__ == "__main__":
    main()
