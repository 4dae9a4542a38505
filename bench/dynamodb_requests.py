"""DynamoDB requests and capacity per pausing turn, per resume and per fan-out delivery; the cost per 1,000
approvals at on-demand prices; and what the Lambda functions pay at cold start.

Requests are recorded with a botocore event hook on the store's own client, against
moto's server on 127.0.0.1.  Capacity is not moto's figure (moto reports none for
transactions): it is computed from each recorded request by DynamoDB's documented
rules, with item sizes by DynamoDB's rules (storage/dynamodb_sizes.py):

- a standard write (PutItem, UpdateItem, DeleteItem) is 1 WCU per 1 KB of the larger
  of the item before and after, rounded up, at least 1, whether or not its condition held;
- a transactional write is 2 WCU per 1 KB of each item it names, ConditionCheck included;
- a strongly consistent read is 1 RCU per 4 KB, an eventually consistent one 0.5;
  GetItem by the item's size (a missing item still costs the minimum); Query by the sum
  of the sizes of every item it reads, whole items however few attributes it returns,
  rounded up to 4 KB once; a transactional read 2 RCU per 4 KB per item;
- each global secondary index an item write enters, leaves or changes costs its own
  standard write of the projected item (1 WCU per 1 KB): two (a delete and a put) when
  the write changes the index's key, none when it touches nothing the index projects.

The items before and after each write are read through a second, unhooked client, so
the sizes are the real ones and the figures of the store's requests are untouched.
Cold starts are measured interleaved (A B A B ...), each in a fresh interpreter, as
the CPU time the imports take, with the load average printed beside them.

    python bench/dynamodb_requests.py [--turns 20] [--imports 9] [--layer] [--python PATH ...] [--package DIR ...]
        [--no-requests]
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import yaml

from stalwart_agents import Desk
from stalwart_agents.aws.fanout import deliver
from stalwart_agents.aws.local import start_moto
from stalwart_agents.storage import open_storage
from stalwart_agents.storage.dynamodb import DynamoStorage
from stalwart_agents.storage.dynamodb_schema import TABLE
from stalwart_agents.storage.dynamodb_sizes import item_size

ROOT = Path(__file__).resolve().parent.parent
SHOP = ROOT / "examples" / "shop" / "agent.yaml"
KB = 1024

PRICES = {"write": 0.625, "read": 0.125}
"""US$ per million write / read request units, on-demand, Standard table class, us-east-1: the prices in force since
1 November 2024 (they halved then, from 1.25 and 0.25)."""

WRITES = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheck"}


# ------------------------------------------------------------------ capacity by DynamoDB's rules


@dataclass
class Bill:
    """What a stretch of requests cost: requests by operation, read units, table write units, index write units."""

    calls: collections.Counter[str] = field(default_factory=collections.Counter)
    read: float = 0.0
    write: float = 0.0
    index: float = 0.0

    @property
    def requests(self) -> int:
        return sum(self.calls.values())


def write_units(size: int) -> int:
    return max(1, math.ceil(size / KB))


def read_units(size: int, consistent: bool) -> float:
    return max(1, math.ceil(size / (4 * KB))) * (1.0 if consistent else 0.5)


def projected(item: dict[str, Any] | None, index: dict[str, Any]) -> dict[str, Any] | None:
    """The index's entry for ``item``: None where the item lacks a key attribute of the index (a sparse index)."""
    keys = [k["AttributeName"] for k in index["KeySchema"]]
    if item is None or any(k not in item for k in keys):
        return None
    projection = index["Projection"]
    if projection["ProjectionType"] == "ALL":
        return dict(item)
    kept = {*keys, "pk", "sk", *projection.get("NonKeyAttributes", [])}
    return {k: v for k, v in item.items() if k in kept}


def index_units(before: dict[str, Any] | None, after: dict[str, Any] | None) -> int:
    """The standard writes each global secondary index takes for one item going from ``before`` to ``after``."""
    units = 0
    for index in TABLE["GlobalSecondaryIndexes"]:
        old, new = projected(before, index), projected(after, index)
        keys = [k["AttributeName"] for k in index["KeySchema"]]
        if old == new:
            continue
        if old is not None and new is not None and any(old[k] != new[k] for k in keys):
            units += write_units(item_size(old)) + write_units(item_size(new))
        else:
            units += write_units(item_size(new if new is not None else old or {}))
    return units


class Recorder:
    """Counts each request the store's client sends and bills it by the rules above."""

    def __init__(self, client: Any, shadow: Any) -> None:
        self.shadow, self.bill = shadow, Bill()
        self._params: dict[str, Any] = {}
        self._before: list[tuple[str, str, dict[str, Any], dict[str, Any] | None]] = []
        client.meta.events.register("before-parameter-build.dynamodb.*", self._snapshot)
        client.meta.events.register("after-call.dynamodb.*", self._charge)

    def take(self) -> Bill:
        taken, self.bill = self.bill, Bill()
        return taken

    def _item(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        item: dict[str, Any] | None = self.shadow.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
        return item

    def _written(self, operation: str, params: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
        """(kind, table, key) of each item a write request names."""
        if operation == "TransactWriteItems":
            named = [next(iter(item.items())) for item in params["TransactItems"]]
        elif operation in ("PutItem", "UpdateItem", "DeleteItem"):
            named = [(operation.removesuffix("Item"), params)]
        else:
            return []
        return [
            (kind, request["TableName"], request.get("Key") or {k: request["Item"][k] for k in ("pk", "sk")})
            for kind, request in named
        ]

    def _snapshot(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        self._params = params
        self._before = [
            (kind, table, key, self._item(table, key)) for kind, table, key in self._written(model.name, params)
        ]

    def _charge(self, model: Any, **_: Any) -> None:
        operation, params = model.name, self._params
        if operation in ("DescribeTable", "CreateTable", "UpdateTimeToLive", "DescribeTimeToLive"):
            return
        self.bill.calls[operation] += 1
        if operation == "TransactWriteItems":
            self._charge_writes(transactional=True)
        elif operation in ("PutItem", "UpdateItem", "DeleteItem"):
            self._charge_writes(transactional=False)
        elif operation == "GetItem":
            item = self._item(params["TableName"], params["Key"])
            self.bill.read += read_units(item_size(item) if item else 0, params.get("ConsistentRead", False))
        elif operation == "Query":
            self.bill.read += read_units(self._queried(params), params.get("ConsistentRead", False))
        elif operation == "TransactGetItems":
            for get in params["TransactItems"]:
                item = self._item(get["Get"]["TableName"], get["Get"]["Key"])
                self.bill.read += 2 * read_units(item_size(item) if item else 0, True)
        else:
            raise SystemExit(f"the bench does not bill {operation}; add its rule")

    def _charge_writes(self, transactional: bool) -> None:
        for kind, table, key, before in self._before:
            after = self._item(table, key)
            self.bill.write += (2 if transactional else 1) * write_units(
                max(item_size(before) if before else 0, item_size(after) if after else 0)
            )
            if kind != "ConditionCheck":
                self.bill.index += index_units(before, after)

    def _queried(self, params: dict[str, Any]) -> int:
        """The bytes a Query reads: every item its key condition and Limit reach, whole, before any filter."""
        request = {k: v for k, v in params.items() if k not in ("ProjectionExpression", "FilterExpression", "Select")}
        if "ProjectionExpression" in params or "FilterExpression" in params:
            used = str(request.get("KeyConditionExpression", ""))
            names = {k: v for k, v in request.get("ExpressionAttributeNames", {}).items() if k in used}
            values = {k: v for k, v in request.get("ExpressionAttributeValues", {}).items() if k in used}
            request = {
                k: v for k, v in request.items() if k not in ("ExpressionAttributeNames", "ExpressionAttributeValues")
            }
            request |= ({"ExpressionAttributeNames": names} if names else {}) | (
                {"ExpressionAttributeValues": values} if values else {}
            )
        return sum(item_size(item) for item in self.shadow.query(**request).get("Items", []))


# ------------------------------------------------------------------ one approval, billed


def requests(endpoint: str, turns: int) -> dict[str, Bill]:
    """Median bills of a pausing turn, the resume that runs the charge, and the fan-out's delivery of the pause."""
    table = f"bench-{uuid.uuid4().hex[:8]}"
    desk = Desk.from_file(SHOP, storage=f"dynamodb://{table}?region=us-east-1&endpoint={endpoint}")
    shadow = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    assert isinstance(desk.storage, DynamoStorage)
    recorder = Recorder(desk.storage.client, shadow)
    bills: dict[str, list[Bill]] = {"pausing turn": [], "resume (runs the charge)": [], "fan-out delivery": []}
    for n in range(turns):
        recorder.take()
        pause = desk.send(f"t-{n}", "look up order 4411 and charge 40 to order 4411").waiting[0]
        bills["pausing turn"].append(recorder.take())
        keys = {"pk": {"S": f"R#{pause.run}"}, "sk": {"S": f"P#{pause.id}"}}
        assert (
            deliver(
                [{"eventName": "INSERT", "dynamodb": {"Keys": keys, "SequenceNumber": str(n)}}], desk.storage, posted
            )
            == []
        )
        bills["fan-out delivery"].append(recorder.take())
        desk.confirm(f"t-{n}", "approve", waiting=pause.id, token=pause.token)
        bills["resume (runs the charge)"].append(recorder.take())
    medians = {}
    for name, taken in bills.items():
        median = Bill(
            calls=taken[-1].calls,
            read=statistics.median(b.read for b in taken),
            write=statistics.median(b.write for b in taken),
            index=statistics.median(b.index for b in taken),
        )
        medians[name] = median
        print(
            f"{name:26}: {statistics.median(b.requests for b in taken):.0f} requests, {median.read:g} RRU, "
            f"{median.write:g} WRU + {median.index:g} WRU on indexes (median of {turns}); e.g. {dict(median.calls)}"
        )
    return medians


def cost(bills: dict[str, Bill]) -> None:
    """What 1,000 approvals cost at on-demand prices: a pausing turn and its resume, and with a webhook its delivery."""
    print(
        f"prices: ${PRICES['write']} per million WRU, ${PRICES['read']} per million RRU"
        " (on-demand, Standard table class, us-east-1, since 2024-11-01)"
    )
    for name, parts in (
        ("without a webhook", ("pausing turn", "resume (runs the charge)")),
        ("with a webhook", tuple(bills)),
    ):
        write = sum(bills[p].write + bills[p].index for p in parts)
        read = sum(bills[p].read for p in parts)
        dollars = 1000 * (write * PRICES["write"] + read * PRICES["read"]) / 1e6
        formula = f"1000 x ({write:g} WRU x {PRICES['write']} + {read:g} RRU x {PRICES['read']}) / 1e6"
        print(f"per 1,000 approvals, {name:17}: {formula} = ${dollars:.4f}")


def posted(thread: str, pause: Any) -> None:
    """The webhook, taking every delivery: what it does over HTTP sends nothing to DynamoDB."""


# ------------------------------------------------------------------ cold start


FLOOR = "import fastapi, mangum, boto3"
ROUTE = "import stalwart_agents.aws.handlers, stalwart_agents.http.app, stalwart_agents.storage.dynamodb, mangum"
ROUTES = ("interrupts", "messages", "resume", "stream")
FANOUT = "import stalwart_agents.aws.fanout, stalwart_agents.storage.dynamodb"
LANGUAGE = "import stalwart_agents.reading.language as l; l._model()"
POWERTOOLS = (
    "import aws_lambda_powertools.logging, aws_lambda_powertools.metrics, aws_lambda_powertools.tracing;"
    " from aws_lambda_powertools import Logger, Tracer;"
    " Logger(service='s'); Tracer(service='s', patch_modules=('botocore',))"
)
FLOOR_APP = """
import boto3
from fastapi import FastAPI
from mangum import Mangum

client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url={endpoint!r})
app = FastAPI()


@app.get("/threads/{{thread}}/interrupts")
def interrupts(thread: str) -> dict:
    return client.get_item(TableName="cold", Key={{"pk": {{"S": "T#" + thread}}, "sk": {{"S": "THREAD"}}}})


handler = Mangum(app, lifespan="off")
"""
"""What a route function does, with nothing of stalwart_agents: a FastAPI app with one route behind Mangum, and a
boto3 DynamoDB client (made at cold start, as the store makes its own)."""
READY = (
    "import importlib.util as u; s = u.spec_from_file_location('app', {path!r}); m = u.module_from_spec(s);"
    " s.loader.exec_module(m)"
)
"""A function's app.py loaded as Lambda loads it, up to its handler being ready."""


FIRST_REQUESTS = {
    "messages": ({"text": "charge 40 to order 4412"}, 200),
    "resume": ({"interrupt_id": "p_none", "token": "none", "decision": "approve"}, 404),
}
"""What the first invocation of a route function is asked, and the status it answers: a turn that pauses a charge
for approval (the shop's rule decided), a resume of a thread that does not exist (refused after its lookup)."""


def first_invocation(route: str) -> str:
    """The statement that loads the route's app.py as ``READY`` does, then times only its first invocation: an API
    Gateway event behind the JWT authorizer, on a thread of its own (``t``, which ``cold`` reads, is taken again
    once the handler is ready)."""
    body, status = FIRST_REQUESTS[route]
    event = json.loads((ROOT / "tests" / "events" / "http_api_jwt.json").read_text())
    path = f"/threads/THREAD/{route}"
    event.update(
        routeKey=f"POST /threads/{{id}}/{route}",
        rawPath=path,
        rawQueryString="",
        cookies=[],
        queryStringParameters=None,
        headers={"host": "id.execute-api.us-east-1.amazonaws.com", "content-type": "application/json"},
        pathParameters={"id": "THREAD"},
        body=json.dumps(body),
        isBase64Encoded=False,
    )
    event["requestContext"]["http"].update(method="POST", path=path)
    return (
        f"{READY.format(path=str(ROOT / 'functions' / route / 'app.py'))}; import json, uuid;"
        f" e = json.loads({json.dumps(event)!r}.replace('THREAD', 'cold-' + uuid.uuid4().hex));"
        f" t = time.process_time(); a = m.handler(e, None); assert a['statusCode'] == {status}, a"
    )


def cold(statement: str, env: dict[str, str] | None = None, python: list[str] | None = None) -> float:
    """CPU seconds ``statement`` takes in a fresh interpreter, timed inside it: CPU time, not wall time, so that other
    work on the machine, which delays a process without making it do more, does not count."""
    code = f"import time; t = time.process_time(); {statement}; print(time.process_time() - t)"
    done = subprocess.run(
        [*(python or [sys.executable]), "-c", code], capture_output=True, text=True, cwd=ROOT, env=env
    )
    if done.returncode != 0:
        raise SystemExit(f"{statement[:80]}... failed:\n{done.stderr}")
    return float(done.stdout.strip().splitlines()[-1])


Case = tuple[str, dict[str, str] | None, list[str] | None]
"""A statement to time, the environment it runs in (this one's where None), the Python (this one where None)."""


def interleaved(cases: dict[str, Case], runs: int) -> dict[str, list[float]]:
    """Seconds of each run of each case, the cases run in turn (A B C, B C A, C A B ...) so drift in the machine's
    load hits all, and no case is always the first after another's."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    for round_ in range(runs):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:  # each round starts one case later
            statement, env, python = cases[name]
            times[name].append(cold(statement, env, python))
    return times


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def report(title: str, cases: dict[str, Case], floor: str, runs: int, also: str | None = None) -> None:
    """Each case's median, the median of its ratios to the floor run in the same round (what drift in the machine's
    load moves least), and its fastest run against the floor's: on a shared machine other work only ever adds CPU
    time (caches and cores shared), so the fastest of several runs is the steadier figure.  With ``also``, each
    case's median ratio to that second floor as well."""
    times = interleaved(cases, runs)
    medians = {name: statistics.median(taken) for name, taken in times.items()}
    fastest = {name: min(taken) for name, taken in times.items()}

    def ratio(name: str, to: str) -> float:
        return statistics.median(t / f for t, f in zip(times[name], times[to], strict=True))

    print(title)
    for name in times:
        against = f"; {ratio(name, also):.2f} x {also.removeprefix('floor: ')}" if also is not None else ""
        print(
            f"  {name:36}: median {medians[name] * 1000:4.0f} ms,"
            f" of each round's ratio {ratio(name, floor):.2f} x floor;"
            f" fastest {fastest[name] * 1000:4.0f} ms = {fastest[name] / fastest[floor]:.2f} x floor{against}"
        )
    print(f"  load average after: {load()}  ({runs} runs each, interleaved)")


def compiled_copy(package: Path, into: Path, pythons: list[str]) -> None:
    """stalwart_agents as the layer ships it (shared/Makefile): cel-python's parser saved beside reading/cel.py by
    the first Python, and bytecode for each Python measured, compiled as the layer's is (unchecked-hash): the checkout
    may have no bytecode (PYTHONDONTWRITEBYTECODE), and compiling 60 modules on every start would be measured
    instead."""
    shutil.copytree(package, into / "stalwart_agents", ignore=shutil.ignore_patterns("__pycache__", "*.pickle"))
    parser = into / "stalwart_agents" / "reading" / "cel_parser.pickle"
    build = os.environ | {"PYTHONPATH": str(into)}
    subprocess.run([pythons[0], "-B", "-P", "-m", "stalwart_agents.reading.cel", str(parser)], check=True, env=build)
    for python in pythons:
        subprocess.run(
            [python, "-m", "compileall", "-q", "--invalidation-mode", "unchecked-hash", str(into)], check=True
        )


def agent_layer(copy: Path, into: Path, python: list[str]) -> Path:
    """The shop's folder as `sam build` makes the agent layer of it (agent-layer/Makefile), with the package in
    ``copy`` on the build's path; its agent.yaml."""
    into.mkdir(parents=True)
    makefile = ROOT / "agent-layer" / "Makefile"
    subprocess.run(
        ["make", "-s", "-f", str(makefile), "build-AgentLayer", f"ARTIFACTS_DIR={into}", f"PYTHON={' '.join(python)}"],
        cwd=SHOP.parent,
        env=os.environ | {"PYTHONPATH": str(copy)},
        check=True,
    )
    return into / SHOP.name


def function_environment(copy: Path, endpoint: str, agent: Path = SHOP) -> dict[str, str]:
    """What template.yaml gives a route function (Globals), over moto's table ``cold``, as in Lambda."""
    return os.environ | {
        "PYTHONPATH": str(copy),
        "STALWART_CONFIG": str(agent),
        "STALWART_STORAGE": f"dynamodb://cold?region=us-east-1&endpoint={endpoint}",
        "STALWART_AUTH": "api-gateway",
        "POWERTOOLS_SERVICE_NAME": "stalwart-agents",
        "POWERTOOLS_METRICS_NAMESPACE": "StalwartAgents",
        "LAMBDA_TASK_ROOT": str(copy),
        "AWS_LAMBDA_FUNCTION_NAME": "bench",
        "AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001",  # Lambda's runtime API, which nothing here calls
    }


def agent_without_rules(into: Path) -> Path:
    """The shop agent without its check's CEL rule, to tell what parsing a rule at load costs a cold start."""
    spec = yaml.safe_load(SHOP.read_text())
    for agent in spec["agents"]:
        agent.pop("check", None)
    shutil.copytree(SHOP.parent, into, ignore=shutil.ignore_patterns("*.db*", "__pycache__"))
    (into / "agent.yaml").write_text(yaml.safe_dump(spec))
    return into / "agent.yaml"


def loaded_modules(route: str, env: dict[str, str], python: list[str]) -> str:
    """The statement importing what the route's function has imported of stalwart_agents when its handler is ready."""
    listing = "import sys; print(' '.join(sorted(m for m in sys.modules if m.startswith('stalwart_agents'))))"
    statement = f"{READY.format(path=str(ROOT / 'functions' / route / 'app.py'))}; {listing}"
    done = subprocess.run([*python, "-c", statement], capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    return f"{FLOOR}; import " + ", ".join(done.stdout.split())


def imports(runs: int, endpoint: str, packages: list[Path], pythons: list[str]) -> None:
    """What a route function pays at cold start against what fastapi, mangum and boto3 cost alone, on each Python:

    1. importing the modules of stalwart_agents that the route's function has loaded when its handler is ready,
       against ``import fastapi, mangum, boto3`` (issue 14's measure);
    2. the cold start itself: the function's app.py loaded, with the environment template.yaml gives it, until its
       handler is ready (the agent file read, the Desk built, the app made), against a floor app doing the same job
       with fastapi, mangum and boto3 alone; for interrupts also with Powertools off, and with no CEL rule to parse.

    Several packages (``--package`` repeated) are timed in the same rounds, to compare checkouts.  Then, on the
    first Python, the fan-out, and what numpy (through py3langid, on a turn the selector could not read) and
    Powertools add to the floor."""
    with tempfile.TemporaryDirectory() as tmp:
        copies: dict[str, Path] = {}
        for n, package in enumerate(packages, 1):
            label = f" [{n}]" if len(packages) > 1 else ""
            copies[label] = Path(tmp) / str(n)
            compiled_copy(package, copies[label], pythons)
            print(f"[{n}] = {package}" if label else f"package: {package}")
        floor_app = Path(tmp) / "floor_app.py"
        floor_app.write_text(FLOOR_APP.format(endpoint=endpoint))
        no_rules = agent_without_rules(Path(tmp) / "shop-without-rules")
        in_lambda = {label: function_environment(copy, endpoint) for label, copy in copies.items()}
        compiled = next(iter(in_lambda.values()))
        print(f"load average before: {load()}")
        for python in pythons:
            command = [python]
            modules: dict[str, Case] = {"floor: import fastapi, mangum, boto3": (FLOOR, compiled, command)}
            started: dict[str, Case] = {
                "floor app (fastapi, mangum, boto3)": (READY.format(path=str(floor_app)), compiled, command)
            }
            for label, env in in_lambda.items():
                for route in ROUTES:
                    modules[f"{route}{label}: its modules"] = (loaded_modules(route, env, command), env, command)
                    app = READY.format(path=str(ROOT / "functions" / route / "app.py"))
                    started[f"{route}{label}: handler ready"] = (app, env, command)
                interrupts = READY.format(path=str(ROOT / "functions" / "interrupts" / "app.py"))
                quiet = {k: v for k, v in env.items() if k != "POWERTOOLS_SERVICE_NAME"}
                started[f"interrupts{label}: Powertools off"] = (interrupts, quiet, command)
                untraced = env | {"POWERTOOLS_TRACE_DISABLED": "true"}
                started[f"interrupts{label}: tracing off"] = (interrupts, untraced, command)
                started[f"interrupts{label}: no CEL rule"] = (
                    interrupts,
                    env | {"STALWART_CONFIG": str(no_rules)},
                    command,
                )
            report(f"{python}: (1) imports", modules, "floor: import fastapi, mangum, boto3", runs)
            report(f"{python}: (2) cold start", started, "floor app (fastapi, mangum, boto3)", runs)
        others: dict[str, Case] = {
            "floor (fastapi, mangum, boto3)": (FLOOR, compiled, None),
            "fan-out (functions/fanout/app.py)": (FANOUT, compiled, None),
            "floor + language model (numpy)": (f"{FLOOR}; {LANGUAGE}", compiled, None),
            "floor + Powertools as observe.py": (f"{FLOOR}; {POWERTOOLS}", compiled, None),
        }
        report(f"{sys.executable}: the rest", others, "floor (fastapi, mangum, boto3)", runs)


# ------------------------------------------------------------------ the layer: sizes and bytecode


ARM64 = [f"--platform=manylinux{tag}_aarch64" for tag in ("_2_34", "_2_28", "2014")]
"""Lambda's python3.13 runs on Amazon Linux 2023 (glibc 2.34); google-re2 (for cel-python) ships only 2_28 wheels."""


def pip_target(target: Path, *extra: str) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-compile",
            "--target",
            str(target),
            *extra,
            "-r",
            str(ROOT / "shared" / "requirements.txt"),
        ],
        check=True,
    )


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def layer(runs: int) -> None:
    """The layer as SAM builds it (arm64, Python 3.13), by distribution; then, on this machine's Python, the route
    functions' cold import from a copy of the layer without compiled bytecode and with it (python -m compileall)."""
    with tempfile.TemporaryDirectory() as tmp:
        arm = Path(tmp) / "arm64"
        pip_target(arm, *ARM64, "--python-version", "3.13", "--only-binary=:all:")
        groups = {
            "numpy + py3langid": ("numpy", "numpy.libs", "py3langid"),
            "boto3 + botocore + s3transfer": ("boto3", "botocore", "s3transfer"),
            "aws_lambda_powertools": ("aws_lambda_powertools",),
            "aws_xray_sdk + wrapt": ("aws_xray_sdk", "wrapt"),
        }
        total = size(arm)
        print(f"layer (arm64, cp313, without stalwart_agents): {total / 2**20:6.1f} MiB unzipped")
        for name, parts in groups.items():
            taken = sum(size(arm / part) for part in parts if (arm / part).exists())
            print(f"  {name:30}: {taken / 2**20:6.1f} MiB ({taken / total:.0%})")

        local = Path(tmp) / "local"
        pip_target(local)
        shutil.copytree(
            ROOT / "shared" / "stalwart_agents", local / "stalwart_agents", ignore=shutil.ignore_patterns("__pycache__")
        )
        for cache in local.rglob("__pycache__"):
            shutil.rmtree(cache)
        compiled = Path(tmp) / "compiled"
        shutil.copytree(local, compiled)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(compiled)], check=True)
        python = [str(Path(sys.executable).resolve()), "-S", "-B"]
        times = interleaved(
            {
                "without bytecode": (ROUTE, {"PYTHONPATH": str(local)}, python),
                "with bytecode (compileall)": (ROUTE, {"PYTHONPATH": str(compiled)}, python),
            },
            runs,
        )
        medians = {name: statistics.median(taken) for name, taken in times.items()}
        for name, took in medians.items():
            print(f"route functions' import, {name:27}: {took * 1000:6.0f} ms")
        print(
            f"without / with bytecode: {medians['without bytecode'] / medians['with bytecode (compileall)']:.1f}x"
            f" (load {load()})"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--imports", type=int, default=9)
    parser.add_argument(
        "--layer", action="store_true", help="pip install the layer into a temporary folder and measure it"
    )
    parser.add_argument(
        "--python",
        action="append",
        help="a Python to time cold starts on, with the layer's requirements installed (repeat for more;"
        " Lambda runs 3.13); this one by default",
    )
    parser.add_argument(
        "--package",
        type=Path,
        action="append",
        help="a stalwart_agents folder whose cold start is timed (repeat to compare checkouts in the same rounds);"
        " this checkout's by default",
    )
    parser.add_argument("--no-requests", action="store_true", help="time the cold starts only")
    args = parser.parse_args()
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    server, endpoint = start_moto()
    try:
        if not args.no_requests:
            cost(requests(endpoint, args.turns))
        open_storage(f"dynamodb://cold?region=us-east-1&endpoint={endpoint}").close()
        packages = [p.resolve() for p in args.package or [ROOT / "shared" / "stalwart_agents"]]
        imports(args.imports, endpoint, packages, args.python or [sys.executable])
    finally:
        server.stop()
    if args.layer:
        layer(args.imports)


if __name__ == "__main__":
    main()
