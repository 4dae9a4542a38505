"""DynamoDB requests and consumed capacity per pausing turn and per resume, and handler cold imports.

Requests are counted with a botocore event hook on the store's own client, against
moto's server on 127.0.0.1 (moto reports consumed capacity as DynamoDB would:
ReturnConsumedCapacity=TOTAL is asked for in the counting hook).  Cold imports run
what the handler modules import in a fresh interpreter, median of several, against
the floor of `import fastapi, mangum, boto3` measured the same way.

    python bench/dynamodb_requests.py [--turns 20] [--imports 5]
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import subprocess
import sys
import uuid
from pathlib import Path

from stalwart_agents import Desk
from stalwart_agents.aws_local import start_moto

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"


class Counter:
    """Counts each DynamoDB operation the client sends, and the capacity DynamoDB says it consumed."""

    def __init__(self, client) -> None:
        self.calls: collections.Counter[str] = collections.Counter()
        self.capacity = 0.0
        client.meta.events.register("provide-client-params.dynamodb.*", self._ask_capacity)
        client.meta.events.register("after-call.dynamodb.*", self._count)

    def _ask_capacity(self, params, model, **_) -> None:
        if "ReturnConsumedCapacity" in model.input_shape.members:
            params.setdefault("ReturnConsumedCapacity", "TOTAL")

    def _count(self, http_response, parsed, model, **_) -> None:
        self.calls[model.name] += 1
        used = parsed.get("ConsumedCapacity") or []
        self.capacity += sum(c.get("CapacityUnits", 0) for c in (used if isinstance(used, list) else [used]))

    def take(self) -> tuple[int, float, dict[str, int]]:
        taken = (sum(self.calls.values()), self.capacity, dict(self.calls))
        self.calls.clear()
        self.capacity = 0.0
        return taken


def requests(endpoint: str, turns: int) -> None:
    url = f"dynamodb://bench-{uuid.uuid4().hex[:8]}?region=us-east-1&endpoint={endpoint}"
    desk = Desk.from_file(SHOP, storage=url)
    counter = Counter(desk.storage.client)
    turn_figures, resume_figures = [], []
    for n in range(turns):
        counter.take()
        pause = desk.send(f"t-{n}", "look up order 4411 and charge 40 to order 4411").waiting[0]
        turn_figures.append(counter.take())
        desk.confirm(f"t-{n}", "approve", waiting=pause.id, token=pause.token)
        resume_figures.append(counter.take())
    for name, figures in (("pausing turn", turn_figures), ("resume (runs the charge)", resume_figures)):
        calls = statistics.median(f[0] for f in figures)
        capacity = statistics.median(f[1] for f in figures)
        print(f"{name:26}: {calls:.0f} requests, {capacity:.1f} capacity units (median of {turns}); e.g. {figures[-1][2]}")


def cold_import(statement: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
        times.append(float(done.stdout.strip()))
    return statistics.median(times)


def imports(runs: int) -> None:
    """Cold import of what a handler module imports before it builds its app: every route function imports the
    same modules (the service, the DynamoDB store, Mangum); the fan-out imports less."""
    floor = cold_import("import fastapi, mangum, boto3", runs)
    print(f"{'floor (fastapi, mangum, boto3)':34}: {floor * 1000:6.0f} ms")
    imported = {
        "route functions (functions/*/app.py)": "import stalwart_agents.lambdas, stalwart_agents.serve, stalwart_agents.storage.dynamodb, mangum",
        "fan-out (functions/fanout/app.py)": "import stalwart_agents.fanout, stalwart_agents.storage.dynamodb",
    }
    for name, statement in imported.items():
        took = cold_import(statement, runs)
        print(f"{name:34}: {took * 1000:6.0f} ms = {took / floor:.2f} x floor")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--imports", type=int, default=5)
    args = parser.parse_args()
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    server, endpoint = start_moto()
    try:
        requests(endpoint, args.turns)
    finally:
        server.stop()
    imports(args.imports)


if __name__ == "__main__":
    main()
