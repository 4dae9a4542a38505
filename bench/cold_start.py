"""One route function's cold start against fastapi, mangum and boto3 alone, for checkouts compared in the same rounds.

Each case runs in a fresh interpreter, its CPU time taken inside it (``dynamodb_requests.cold``), the cases in short
rotating rounds (A B C, B C A, ...), and each figure is the median of its ratios to the floor run in the same round,
so that the machine's load, which moves every case of a round alike, cancels out.  The load average is printed
before and after.  The cases, for each ``--package`` (stalwart_agents as the layer ships it: cel-python's parser
saved beside it, compiled; and the shop's folder as the agent layer ships it, with the agent.yaml.built.json that
package's build makes, where it makes one):

- **its modules**: ``import fastapi, mangum, boto3`` and then every module of stalwart_agents the function has
  loaded once its handler is ready, against that import alone;
- **handler ready**: ``functions/<route>/app.py`` loaded as Lambda loads it, with the environment template.yaml
  gives it (Powertools on, traces on, the shop's agent) over DynamoDB on moto's server, against a floor app doing
  the same job with fastapi, mangum and boto3 alone, and against ``import fastapi, mangum, boto3`` (issue 31's
  ratio); the same with the stack's ``Tracing=PassThrough``.  Beside them, the same floor app without FastAPI
  (starlette, mangum and boto3), which a function whose routes are all lean stands against (``http.app.LEAN``);
- **first invocation**: the CPU of the first request the function answers once its handler is ready (messages: a
  turn that pauses a charge; resume: one refused, its thread unknown), so that what a cold start leaves to the
  first request is seen.

``--python`` runs the cases on another Python than this one (Lambda's 3.13, with the layer's requirements and no
more), while moto's server runs here.

    python bench/cold_start.py [--route messages] [--rounds 15] [--python PATH] [--package DIR ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.dynamodb_requests import (  # noqa: E402
    FIRST_REQUESTS,
    FLOOR,
    FLOOR_APP,
    READY,
    Case,
    agent_layer,
    compiled_copy,
    first_invocation,
    function_environment,
    load,
    loaded_modules,
    report,
)
from stalwart_agents.aws.local import start_moto  # noqa: E402
from stalwart_agents.storage import open_storage  # noqa: E402

IMPORTS = "floor: import fastapi, mangum, boto3"
FLOOR_APP_CASE = "floor app (fastapi, mangum, boto3)"
STARLETTE_APP_CASE = "floor app without FastAPI (starlette)"
STARLETTE_APP = """
import boto3
from mangum import Mangum
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url={endpoint!r})


async def interrupts(request):
    key = {{"pk": {{"S": "T#" + request.path_params["thread"]}}, "sk": {{"S": "THREAD"}}}}
    return JSONResponse(client.get_item(TableName="cold", Key=key))


app = Starlette(routes=[Route("/threads/{{thread}}/interrupts", interrupts)])
handler = Mangum(app, lifespan="off")
"""
"""The floor app's job, one route and a boto3 DynamoDB client, on Starlette without FastAPI, as ``lean_app`` serves."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--route", default="messages")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--python", default=sys.executable, help="the Python that runs each case")
    parser.add_argument("--package", type=Path, action="append", help="a stalwart_agents folder (repeat to compare)")
    args = parser.parse_args()
    packages = [p.resolve() for p in args.package or [ROOT / "shared" / "stalwart_agents"]]
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    server, endpoint = start_moto()
    try:
        open_storage(f"dynamodb://cold?region=us-east-1&endpoint={endpoint}").close()
        with tempfile.TemporaryDirectory() as tmp:
            python = [args.python]
            floor_app = Path(tmp) / "floor_app.py"
            floor_app.write_text(FLOOR_APP.format(endpoint=endpoint))
            starlette_app = Path(tmp) / "starlette_app.py"
            starlette_app.write_text(STARLETTE_APP.format(endpoint=endpoint))
            app = READY.format(path=str(ROOT / "functions" / args.route / "app.py"))
            modules: dict[str, Case] = {}
            started: dict[str, Case] = {}
            for n, package in enumerate(packages, 1):
                copy = Path(tmp) / str(n)
                compiled_copy(package, copy, python)
                print(f"[{n}] = {package}")
                env = function_environment(copy, endpoint, agent_layer(copy, Path(tmp) / f"agent-{n}", python))
                if not modules:
                    modules[IMPORTS] = (FLOOR, env, python)
                    started[IMPORTS] = (FLOOR, env, python)
                    started[FLOOR_APP_CASE] = (READY.format(path=str(floor_app)), env, python)
                    started[STARLETTE_APP_CASE] = (READY.format(path=str(starlette_app)), env, python)
                modules[f"{args.route} [{n}]: its modules"] = (loaded_modules(args.route, env, python), env, python)
                started[f"{args.route} [{n}]: handler ready"] = (app, env, python)
                untraced = env | {"POWERTOOLS_TRACE_DISABLED": "true"}
                started[f"{args.route} [{n}]: Tracing=PassThrough"] = (app, untraced, python)
                if args.route in FIRST_REQUESTS:
                    started[f"{args.route} [{n}]: first invocation"] = (first_invocation(args.route), env, python)
            print(f"python: {args.python}; load average before: {load()}")
            report("(1) imports", modules, IMPORTS, args.rounds)
            report("(2) cold start", started, FLOOR_APP_CASE, args.rounds, also=IMPORTS)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
