"""What a Lambda function imports at cold start: only what its work uses.

Each function's app.py is loaded in a fresh interpreter as Lambda loads it, with the environment the stack gives it
(Powertools on), and the modules it imported are read back.  Not timed: bench/dynamodb_requests.py times them.
"""

import gc
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from stalwart_agents.aws.built_agent import build
from stalwart_agents.aws.collector import built_for_life
from stalwart_agents.http.app import LEAN

from .conftest import FAKE_AWS, ROOT, SHOP

ROUTES = (
    "config",
    "feedback",
    "healthz",
    "interface",
    "interrupts",
    "links",
    "messages",
    "resume",
    "rollback",
    "stream",
)
OTHERS = ("clock", "fanout", "sweep")
"""Functions whose app.py builds nothing at import (their handler starts on the first event)."""

LAZY = ("aws_xray_sdk", "httpx", "celpy", "jsonschema", "slack_sdk", "numpy", "py3langid")
"""Loaded where they are used: X-Ray where tracing is on, httpx where a webhook posts, cel-python where a rule is
compiled, jsonschema where a tool's schema is checked, slack_sdk where Slack is a channel, numpy where a turn's
language is named."""

LOADED = """
import importlib.util, json, sys
DEEP = ("opentelemetry.", "stalwart_agents.telemetry.", "celpy.")
for name in {functions!r}:
    spec = importlib.util.spec_from_file_location("app_" + name, {root!r} + "/functions/" + name + "/app.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
print(json.dumps(sorted({{m for m in sys.modules if "." not in m or m.startswith(DEEP)}})))
"""


def printed(code, environ):
    """What ``code``, run in a fresh interpreter with ``environ``, printed last, as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, cwd=ROOT, env=environ, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def loaded(functions, environ):
    """The top-level modules and packages imported once each function of ``functions`` has been loaded, in one
    interpreter, and the modules below ``DEEP``'s packages (cel-python's parser is loaded without its package)."""
    return set(printed(LOADED.format(functions=functions, root=str(ROOT)), environ))


@pytest.fixture
def stack(tmp_path, monkeypatch):
    """The environment template.yaml gives a function, over a store of this test's own, and an agent whose check has
    no CEL rule (the shop's, without its ``when:``)."""
    shop = shutil.copytree(SHOP.parent, tmp_path / "shop", ignore=shutil.ignore_patterns("*.db*", "__pycache__"))
    spec = yaml.safe_load(SHOP.read_text())
    for agent in spec["agents"]:
        agent.pop("check", None)
    (shop / "agent.yaml").write_text(yaml.safe_dump(spec))
    return os.environ | {
        "PYTHONPATH": str(ROOT / "shared"),
        "STALWART_CONFIG": str(shop / "agent.yaml"),
        "STALWART_STORAGE": f"sqlite:///{tmp_path / 'runs.db'}",
        "STALWART_AUTH": "api-gateway",
        "POWERTOOLS_SERVICE_NAME": "stalwart-agents",
        "POWERTOOLS_METRICS_NAMESPACE": "StalwartAgents",
        "AWS_LAMBDA_FUNCTION_NAME": "cold-start",
        "AWS_DEFAULT_REGION": "us-east-1",
    }


OPENTELEMETRY = (
    "opentelemetry.sdk",
    "opentelemetry.exporter",
    "opentelemetry.proto",
    "google",
    "stalwart_agents.telemetry.on",
)
"""Loaded where an OTEL_* variable turns telemetry on.  (OpenTelemetry's API is not among them: FastAPI imports it
itself, for spans of its own that the service turns off.)"""


def test_with_tracing_off_no_function_imports_what_it_does_not_use(stack):
    imported = loaded(ROUTES + OTHERS, stack | {"POWERTOOLS_TRACE_DISABLED": "true"})
    assert "aws_lambda_powertools" in imported  # its logger and metrics are on
    assert imported.isdisjoint(LAZY), sorted(imported & set(LAZY))
    assert not {m for m in imported if m.startswith("celpy.")}, "no rule to read, not even cel-python's parser"
    assert not {m for m in imported if m.startswith(OPENTELEMETRY)}, sorted(
        m for m in imported if m.startswith(OPENTELEMETRY)
    )


def test_a_function_whose_routes_are_all_lean_loads_no_fastapi(stack):
    """http/app.py's LEAN: the messages, resume, stream and feedback functions are built as Lambda builds them on
    Starlette alone (``lean_app``), since nothing of FastAPI serves them; the interrupts function, whose inbox reads a
    query, on FastAPI."""
    untraced = stack | {"POWERTOOLS_TRACE_DISABLED": "true"}
    for function in LEAN:
        assert "fastapi" not in loaded((function,), untraced), function
    assert "fastapi" in loaded(("interrupts",), untraced)


VALIDATORS = """
import importlib.util, json, pydantic
spec = importlib.util.spec_from_file_location("app", {root!r} + "/functions/messages/app.py")
spec.loader.exec_module(importlib.util.module_from_spec(spec))
from stalwart_agents import config
models = [m for m in vars(config).values() if isinstance(m, type) and issubclass(m, pydantic.BaseModel)]
print(json.dumps(sorted(m.__name__ for m in models if m.__pydantic_complete__)))
"""


def test_an_agent_as_its_layer_built_it_is_loaded_without_yaml_or_validators(stack):
    """aws/built_agent.py: where the agent layer's build left agent.yaml.built.json, made from this very file, no
    YAML is read and none of config.py's models builds its validator."""
    agent = Path(stack["STALWART_CONFIG"])
    build(agent)
    untraced = stack | {"POWERTOOLS_TRACE_DISABLED": "true"}
    assert "yaml" not in loaded(ROUTES, untraced)
    assert printed(VALIDATORS.format(root=str(ROOT)), untraced) == []
    agent.write_text(agent.read_text() + "# changed since the build\n")
    assert "yaml" in loaded(("messages",), untraced)


COLLECTOR = """
import gc, importlib.util, json
spec = importlib.util.spec_from_file_location("app", {root!r} + "/functions/messages/app.py")
app = importlib.util.module_from_spec(spec)
spec.loader.exec_module(app)
ready = [gc.isenabled(), gc.get_freeze_count()]
answered = app.handler(json.loads({event!r}), None)["statusCode"]
print(json.dumps([*ready, answered]))
"""


@pytest.mark.parametrize("in_lambda", [True, False])
def test_in_lambda_a_function_is_built_without_the_collector_and_what_it_built_is_frozen(stack, in_lambda):
    """aws/collector.py: the collector paused while the handler is built, on again once it is ready, every object
    then in the permanent generation; outside Lambda's runtime nothing is frozen."""
    runtime = {"AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001"} if in_lambda else {}
    event = json.dumps(turn_event("collected", "look up order 4411"))
    untraced = stack | {"POWERTOOLS_TRACE_DISABLED": "true"} | runtime
    enabled, frozen, answered = printed(COLLECTOR.format(root=str(ROOT), event=event), untraced)
    assert (enabled, answered) == (True, 200)
    assert frozen > 50_000 if in_lambda else frozen == 0


def test_a_build_that_fails_leaves_the_collector_on_and_nothing_frozen():
    with pytest.raises(RuntimeError), built_for_life({"AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001"}):
        assert not gc.isenabled()
        raise RuntimeError("the agent file has a mistake")
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_with_an_otlp_endpoint_the_functions_load_the_sdk(stack):
    imported = loaded(
        ("messages",),
        stack | {"POWERTOOLS_TRACE_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"},
    )
    assert {"opentelemetry.sdk.trace", "stalwart_agents.telemetry.on"} <= imported


TRACED = """
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("app", {root!r} + "/functions/messages/app.py")
app = importlib.util.module_from_spec(spec)
spec.loader.exec_module(app)
from aws_xray_sdk.core import xray_recorder

class Emitter:
    sent = []

    def send_entity(self, entity):
        self.sent.append(entity.to_dict())

xray_recorder.emitter = Emitter()
event = json.loads({event!r})
for n in range(2):
    os.environ["_X_AMZN_TRACE_ID"] = f"Root=1-5759e988-bd862e3fe1be46a99427279{{n}};Parent=53995c3f42cd8ad8;Sampled=1"
    assert app.handler(event, None)["statusCode"] == 200
print(json.dumps(Emitter.sent))
"""


def turn_event(thread, text):
    """What API Gateway hands the messages function for a turn, behind the JWT authorizer."""
    event = json.loads((ROOT / "tests" / "events" / "http_api_jwt.json").read_text())
    path = f"/threads/{thread}/messages"
    event.update(
        routeKey="POST /threads/{id}/messages",
        rawPath=path,
        rawQueryString="",
        cookies=[],
        queryStringParameters=None,
        headers={"host": "id.execute-api.us-east-1.amazonaws.com", "content-type": "application/json"},
        pathParameters={"id": thread},
        body=json.dumps({"text": text}),
        isBase64Encoded=False,
    )
    event["requestContext"]["http"].update(method="POST", path=path)
    return event


def test_with_tracing_on_each_invocation_is_traced(stack, dynamodb_url):
    """Each invocation's handler and DynamoDB requests, the first's among them, in the invocation's own trace."""
    environ = stack | FAKE_AWS | {"STALWART_STORAGE": dynamodb_url, "LAMBDA_TASK_ROOT": str(ROOT)}
    event = json.dumps(turn_event("traced", "look up order 4411"))
    sent = printed(TRACED.format(root=str(ROOT), event=event), environ)
    handlers = [entity for entity in sent if entity["name"] == "## handle"]
    assert [(entity["trace_id"][-1], entity["annotations"]["ColdStart"]) for entity in handlers] == [
        ("0", True),
        ("1", False),
    ]
    commits = [entity for entity in sent if entity.get("aws", {}).get("operation") == "TransactWriteItems"]
    assert [entity["trace_id"][-1] for entity in commits] == ["0", "1"], "each turn's commit traced in its own trace"


def test_a_rule_the_subset_decides_is_read_without_cel_python(stack):
    """The shop's ``args.amount > 500``: read without lark (cel_plain), decided in Python (cel_subset)."""
    imported = loaded(("messages",), stack | {"STALWART_CONFIG": str(SHOP), "POWERTOOLS_TRACE_DISABLED": "1"})
    assert "stalwart_agents" in imported
    assert not {m for m in imported if m.startswith("celpy.")}, "not even cel-python's parser"
    assert imported.isdisjoint({"celpy", "lark", "re2", "pendulum"}), sorted(imported & {"celpy", "lark", "re2"})


def test_a_rule_beyond_the_subset_loads_cel_python(stack, tmp_path):
    spec = yaml.safe_load(SHOP.read_text())
    spec["agents"][0]["check"]["rules"][0]["when"] = "args.amount * 2 > 1000"
    agent = tmp_path / "shop" / "beyond.yaml"
    agent.write_text(yaml.safe_dump(spec))
    imported = loaded(("messages",), stack | {"STALWART_CONFIG": str(agent), "POWERTOOLS_TRACE_DISABLED": "1"})
    assert "celpy" in imported
