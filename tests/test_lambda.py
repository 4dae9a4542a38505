"""The deployed shape, run here: each function template.yaml names, invoked with API Gateway v2 events against
DynamoDB (moto's server over HTTP), answers as the local server does; the fan-out posts what the stream brings."""

import asyncio
import base64
import copy
import importlib.util
import json
import uuid

import boto3
import httpx
import pytest
import yaml

from stalwart_agents import Desk, Webhook
from stalwart_agents.fanout import deliver
from stalwart_agents.serve import make_app

from .conftest import ROOT, SHOP
from .server import at_once, receiving, serving
from .test_template import TEMPLATE, CloudFormationLoader, _matches, fan_out, functions, route_of

EVENT = json.loads((ROOT / "tests" / "events" / "http_api.json").read_text())
OPERATOR = "operator-token-for-lambda-tests"
CHARGE = {"text": "look up order 4411 and charge 40 to order 4411"}


@pytest.fixture(scope="module")
def template():
    return yaml.load(TEMPLATE.read_text(), Loader=CloudFormationLoader)


@pytest.fixture
def storage_url(moto_endpoint, monkeypatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    url = f"dynamodb://t-{uuid.uuid4().hex}?region=us-east-1&endpoint={moto_endpoint}"
    Desk.from_file(SHOP, storage=url).close()
    return url


def http_routes(template):
    """(method, path template, route) of every function behind the HTTP API."""
    for function in functions(template).values():
        for event in function["Properties"].get("Events", {}).values():
            if event["Type"] == "HttpApi":
                yield event["Properties"]["Method"].upper(), event["Properties"]["Path"], route_of(function)


def load_function(route, environ, monkeypatch):
    """Import functions/<route>/app.py as Lambda would on a cold start: a fresh module, the environment set first."""
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    spec = importlib.util.spec_from_file_location(f"function_{route}_{uuid.uuid4().hex}", ROOT / "functions" / route / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.handler


class Deployed:
    """The functions of template.yaml, each a cold-started handler, routed as API Gateway routes."""

    def __init__(self, template, storage_url, monkeypatch):
        base = {"STALWART_CONFIG": str(SHOP), "STALWART_STORAGE": storage_url}
        self.routes = {(method, path): route for method, path, route in http_routes(template)}
        self.monkeypatch = monkeypatch
        self.handlers = {}
        for route in set(self.routes.values()):
            extra = {"QLS_OPERATOR_TOKEN": OPERATOR} if route == "rollback" else {}
            self.handlers[route] = load_function(route, {**base, **extra}, monkeypatch)
            monkeypatch.delenv("QLS_OPERATOR_TOKEN", raising=False)
        self.fresh = lambda route: load_function(route, base, monkeypatch)

    def call(self, method, path, body=None, headers=None, handler=None):
        route, parameters = self._route(method, path)
        event = copy.deepcopy(EVENT)
        event.update(
            routeKey=f"{method} {route[1]}", rawPath=path, rawQueryString="", cookies=[], queryStringParameters=None,
            headers={"host": "id.execute-api.us-east-1.amazonaws.com", **(headers or {})}, pathParameters=parameters,
            body=base64.b64encode(json.dumps(body).encode()).decode() if body is not None else None,
            isBase64Encoded=body is not None,
        )
        event["requestContext"]["http"].update(method=method, path=path)
        answer = (handler or self.handlers[self.routes[route]])(event, None)
        text = base64.b64decode(answer["body"]).decode() if answer.get("isBase64Encoded") else answer["body"]
        return answer["statusCode"], answer["headers"], text

    def _route(self, method, path):
        for (verb, template_path), _ in self.routes.items():
            parts, given = template_path.strip("/").split("/"), path.strip("/").split("/")
            if verb == method and len(parts) == len(given) and all(p == g or p.startswith("{") for p, g in zip(parts, given)):
                return (verb, template_path), {p[1:-1]: g for p, g in zip(parts, given) if p.startswith("{")} or None
        raise AssertionError(f"no function serves {method} {path}")


@pytest.fixture
def deployed(template, storage_url, monkeypatch, ledger):
    return Deployed(template, storage_url, monkeypatch)


def shape(value):
    """A JSON value with its ids, tokens and times blanked: what two servers answering the same turn share."""
    if isinstance(value, dict):
        return {k: "…" if k in ("id", "run", "token", "created_at") else shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value]
    return value


def test_every_http_route_answers_from_its_own_function(deployed):
    assert deployed.call("GET", "/healthz")[0] == 200
    assert json.loads(deployed.call("GET", "/config.json")[2]) == {"agent": "shop", "base": ""}
    status, headers, page = deployed.call("GET", "/")
    assert status == 200 and "<stalwart-chat" in page and "content-security-policy" in headers
    status, _, body = deployed.call("POST", "/threads/u-17/messages", CHARGE)
    assert status == 200
    pause = json.loads(body)["waiting"][0]
    assert json.loads(deployed.call("GET", "/threads/u-17/interrupts")[2])["waiting"] == [pause]
    status, headers, events = deployed.call("GET", "/threads/u-17/stream")
    assert status == 200 and events.startswith("retry: 3000") and "event: pause" in events
    status, _, done = deployed.call("POST", "/threads/u-17/resume", {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]})
    assert status == 200 and json.loads(done)["steps"][-1]["result"]["charge_id"] == "ch-4411"
    rolled = deployed.call("POST", "/threads/u-17/rollback", headers={"authorization": f"Bearer {OPERATOR}"})
    assert rolled[0] == 200 and json.loads(rolled[2])["rollback"]["undone"][0]["tool"] == "charge_card"
    message = json.loads(done)["reply"]["id"]
    assert deployed.call("POST", "/threads/u-17/feedback", {"message": message, "thumb": "up"})[0] == 403


def test_a_body_without_a_content_type_is_read(deployed):
    status, _, body = deployed.call("POST", "/threads/u-1/messages", {"text": "look up order 4412"})
    assert status == 200 and json.loads(body)["steps"][0]["result"]["total"] == "125.50"


def test_the_functions_answer_as_the_local_server_does(deployed, tmp_path):
    _, _, from_lambda = deployed.call("POST", "/threads/u-17/messages", CHARGE)
    with serving(make_app(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}")) as base:
        local = httpx.post(f"{base}/threads/u-17/messages", json=CHARGE).json()
        missing = httpx.post(f"{base}/threads/u-17/resume", json={"interrupt_id": "p_x", "decision": "approve", "token": "t"})
    lambda_body = json.loads(from_lambda)
    assert shape({**lambda_body, "reply": None}) == shape({**local, "reply": None})
    lambda_missing = deployed.call("POST", "/threads/u-17/resume", {"interrupt_id": "p_x", "decision": "approve", "token": "t"})
    assert (lambda_missing[0], json.loads(lambda_missing[2])) == (missing.status_code, missing.json())


def test_two_resume_functions_racing_one_pause_run_it_once(deployed, ledger):
    for n in range(4):
        thread = f"race-{n}"
        pause = json.loads(deployed.call("POST", f"/threads/{thread}/messages", {"text": "charge 40 to order 4411"})[2])["waiting"][0]
        body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
        handlers = deployed.fresh("resume"), deployed.fresh("resume")

        def answer(handler):
            def call():
                asyncio.set_event_loop(asyncio.new_event_loop())
                return deployed.call("POST", f"/threads/{thread}/resume", body, handler=handler)

            return call

        answers = at_once(*(answer(h) for h in handlers))
        assert sorted(a[0] for a in answers) == [200, 409]
        assert [json.loads(a[2])["error"] for a in answers if a[0] == 409] == ["interrupt_stale"]
    assert len(ledger("charge")) == 4


# ------------------------------------------------------------------ the fan-out, fed what the stream really holds


def stream_records(storage_url):
    """Every record the table's stream holds now, as Lambda would be handed them."""
    table = storage_url.split("://")[1].split("?")[0]
    endpoint = storage_url.split("endpoint=")[1]
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    streams = boto3.client("dynamodbstreams", region_name="us-east-1", endpoint_url=endpoint)
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return streams.get_records(ShardIterator=iterator)["Records"]


def filtered(template, records):
    """The records the template's FilterCriteria lets through to the fan-out."""
    function = functions(template)[fan_out(template)]
    (event,) = function["Properties"]["Events"].values()
    patterns = [json.loads(f["Pattern"]) for f in event["Properties"]["FilterCriteria"]["Filters"]]
    return [r for r in records if any(_matches(p, json.loads(json.dumps(r, default=str))) for p in patterns)]


@pytest.fixture
def receiver():
    with receiving("whsec-lambda") as received:
        yield received


def test_the_fan_out_posts_each_new_pause_the_stream_brings(template, storage_url, receiver, ledger):
    desk = Desk.from_file(SHOP, storage=storage_url)
    pause = desk.send("u-17", "look up order 4411 and charge 40 to order 4411").waiting[0]
    records = filtered(template, stream_records(storage_url))
    assert [r["dynamodb"]["Keys"]["sk"]["S"] for r in records] == [f"P#{pause.id}"]

    assert deliver(records, desk.storage, Webhook(receiver.url, "whsec-lambda")) == []
    [delivery] = receiver.got
    assert delivery["interrupt"] == pause.to_dict() and delivery["thread"] == "u-17"
    assert desk.storage.get_pause(pause.id).delivery["delivered"] is True


def test_a_failing_receiver_leaves_the_record_for_a_retry_and_the_pause_marked(template, storage_url, receiver):
    receiver.status = 503
    desk = Desk.from_file(SHOP, storage=storage_url)
    pause = desk.send("u-17", "charge 40 to order 4411").waiting[0]
    records = filtered(template, stream_records(storage_url))
    failed = deliver(records, desk.storage, Webhook(receiver.url, "whsec-lambda", attempts=1))
    assert failed == [records[0]["dynamodb"]["SequenceNumber"]]
    with serving(make_app(desk)) as base:
        listed = httpx.get(f"{base}/threads/u-17/interrupts").json()
    assert [missed["interrupt"] for missed in listed["not_notified"]] == [pause.id]
