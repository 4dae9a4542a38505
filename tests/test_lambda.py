"""The deployed shape, run here: each function template.yaml names, cold-started with the environment the template
gives it and invoked with API Gateway v2 events against DynamoDB (moto's server over HTTP), answers as the local server
does; who calls comes from the claims API Gateway's JWT authorizer verified, never from a header; every DynamoDB request
a function makes is one its policy allows; the fan-out posts what the stream brings, with signed links the links
function answers."""

import asyncio
import base64
import contextlib
import copy
import fnmatch
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import uuid
from typing import cast
from urllib.parse import urlencode, urlsplit

import boto3
import httpx
import pytest
import yaml
from botocore.awsrequest import AWSResponse
from fastapi import FastAPI
from mangum import Mangum
from mangum.types import LambdaContext
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from stalwart_agents import Desk, Webhook
from stalwart_agents.aws import handlers as lambdas
from stalwart_agents.aws.fanout import deliver
from stalwart_agents.errors import Unauthorized
from stalwart_agents.http import app as serve
from stalwart_agents.http.app import lean_app
from stalwart_agents.http.auth import ApiGatewayClaims, NoAuth
from stalwart_agents.http.session import HEADER as SESSION_HEADER
from stalwart_agents.http.ticket import HEADER as TICKET_HEADER
from stalwart_agents.serve import make_app

from .conftest import ROOT, SHOP, delivery_of, present
from .server import at_once, receiving, serving
from .test_http import SHOP_CONFIG
from .test_template import (
    JWT,
    NO_AUTHORIZER,
    TEMPLATE,
    CloudFormationLoader,
    _matches,
    as_list,
    clock,
    deployed_resources,
    environment,
    fan_out,
    fan_out_filters,
    functions,
    http_routes,
    route_of,
    statements,
    sweep,
)

EVENT = json.loads((ROOT / "tests" / "events" / "http_api.json").read_text())
JWT_EVENT = json.loads((ROOT / "tests" / "events" / "http_api_jwt.json").read_text())
"""The same event as API Gateway passes it behind a JWT authorizer: the verified claims in the request context."""
HOST = "id.execute-api.us-east-1.amazonaws.com"
OPERATOR = "operator-token-for-lambda-tests"
CHARGE = {"text": "look up order 4411 and charge 40 to order 4411"}
ALICE = JWT_EVENT["requestContext"]["authorizer"]["jwt"]["claims"]
BOB = ALICE | {"sub": "5d0c2b7e-bob", "email": "bob@shop.example", "name": "Bob Example", "groups": "[support]"}
MODEL_KEY_ENV = "STALWART_SHOP_MODEL_KEY"
TABLE_ARN = {"Fn::GetAtt": ["Table", "Arn"]}
LOCAL_ONLY = {"DescribeTable", "CreateTable", "UpdateTimeToLive"}
"""What the store's setup sends only where DynamoDB runs locally; on AWS it checks the table with a GetItem in K#."""
WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}
SCHEDULED = {"version": "0", "id": "e-1", "detail-type": "Scheduled Event", "source": "aws.events", "detail": {}}
"""What EventBridge hands the sweep every five minutes."""
PUBLIC_URL = f"https://{HOST}"
"""The stack's PublicUrl: its own API's address."""
FORM = {"content-type": "application/x-www-form-urlencoded", "origin": PUBLIC_URL}
"""What a browser sends with the link page's button: a form with no fields, posted back to the page's own origin."""
FINANCE = """
    approvers:
      - name: finance
        tool: charge_card
        who: '"finance" in who.groups'
"""
"""An approver rule over the groups claim API Gateway's authorizer passes: finance answers every charge."""


@pytest.fixture(scope="module")
def template():
    return yaml.load(TEMPLATE.read_text(), Loader=CloudFormationLoader)


@pytest.fixture
def storage_url(dynamodb_url):
    Desk.from_file(SHOP, storage=dynamodb_url).close()
    return dynamodb_url


@pytest.fixture
def secrets(storage_url, moto_endpoint):
    """The stack's secrets as a user passes them: the ARNs of a Secrets Manager secret and an SSM SecureString."""
    name = uuid.uuid4().hex
    manager = boto3.client("secretsmanager", region_name="us-east-1", endpoint_url=moto_endpoint)
    ssm = boto3.client("ssm", region_name="us-east-1", endpoint_url=moto_endpoint)
    ssm.put_parameter(Name=f"/stalwart/{name}/model-key", Value="sk-shop-model-key", Type="SecureString")
    model_key = ssm.get_parameter(Name=f"/stalwart/{name}/model-key")["Parameter"]["ARN"]
    return {
        "OperatorTokenArn": manager.create_secret(Name=f"stalwart/{name}/operator", SecretString=OPERATOR)["ARN"],
        "WebhookSecretArn": manager.create_secret(Name=f"stalwart/{name}/webhook", SecretString="whsec-lambda")["ARN"],
        "ModelKeyArn": model_key,
        "ModelKeyEnv": MODEL_KEY_ENV,
    }


@pytest.fixture
def stack(secrets):
    """The parameters of a stack with the authorizer on, your provider's, and its secrets given."""
    return {"Authentication": "jwt"} | JWT | secrets


@pytest.fixture
def open_stack(secrets):
    return {"Authentication": NO_AUTHORIZER} | secrets


class Deployed:
    """The functions of template.yaml as a stack with ``parameters`` deploys them: each a cold-started handler with
    the environment the template gives it, routed as API Gateway routes, every AWS request it makes recorded.
    Besides the routes: the sweep, the clock, and the fan-out where the stack has a webhook. Only the functions a stack
    with these parameters has are there (the links function only with a PublicUrl)."""

    def __init__(self, template, parameters, storage_url, monkeypatch, config=SHOP):
        self.template, self.parameters, self.monkeypatch, self.config = template, parameters, monkeypatch, config
        self.endpoint = storage_url.split("endpoint=")[1]
        exists = deployed_resources(template, parameters)
        self.routes = {(method, path): name for method, path, name in http_routes(template) if name in exists}
        others = (sweep(template), clock(template), fan_out(template))
        names = set(self.routes.values()) | {name for name in others if name in exists}
        self.environ = {name: self._environ(name, parameters, storage_url) for name in names}
        self.requests: dict[str, list] = {name: [] for name in names}
        self.handed: dict[str, list[dict]] = {name: [] for name in names}
        """The events each function handed to a function asynchronously (InvocationType Event), which Lambda would
        queue: kept here, for the test to run."""
        self.handlers = {name: self.fresh(name) for name in names}

    def _environ(self, name, parameters, storage_url):
        variables = environment(self.template, name, parameters) | {
            "STALWART_CONFIG": str(self.config),
            "STALWART_STORAGE": storage_url,
        }
        assert all(isinstance(value, str) for value in variables.values()), variables
        # where Lambda's own endpoints would answer, moto's does; Lambda names the function (here by its logical id)
        return variables | {
            "AWS_ENDPOINT_URL_SECRETS_MANAGER": self.endpoint,
            "AWS_ENDPOINT_URL_SSM": self.endpoint,
            "AWS_LAMBDA_FUNCTION_NAME": name,
        }

    @contextlib.contextmanager
    def _running_as(self, name):
        """The function's environment (and only its), and boto3 recording what it sends, for as long as this lasts."""
        known = {variable for variables in self.environ.values() for variable in variables} | {MODEL_KEY_ENV}
        with self.monkeypatch.context() as patch:
            for variable in known:
                patch.delenv(variable, raising=False)
            for variable, value in self.environ[name].items():
                patch.setenv(variable, value)
            patch.setattr(boto3, "client", self._recording(name, boto3.client))
            yield

    def fresh(self, name):
        """A cold start: functions/<route>/app.py imported anew, with the function's environment (and only its) set."""
        with self._running_as(name):
            route = route_of(functions(self.template)[name])
            spec = importlib.util.spec_from_file_location(
                f"function_{route}_{uuid.uuid4().hex}", ROOT / "functions" / route / "app.py"
            )
            module = importlib.util.module_from_spec(present(spec))
            present(present(spec).loader).exec_module(module)
        cold_start = getattr(sys.modules[module.handler.__module__], "_cold_start", None)
        if cold_start is None:
            return module.handler
        # the sweep, the clock and the fan-out start cold on their first event, not on import: it runs as the function
        cold_start.cache_clear()

        def invoke(event, context):
            with self._running_as(name):
                return module.handler(event, context)

        return invoke

    def invoke(self, name, event):
        """What a function not behind the API (the sweep, the clock, the fan-out) returns for an event."""
        return self.handlers[name](event, None)

    def _recording(self, name, client):
        def recording(*args, **kwargs):
            made = client(*args, **kwargs)
            service = made.meta.service_model.service_name
            made.meta.events.register(
                f"provide-client-params.{made.meta.service_model.endpoint_prefix}",
                lambda params, model, **_: self.requests[name].append((service, model.name, params)),
            )
            if service == "lambda":
                made.meta.events.register("before-send.lambda.Invoke", self._queued(name))
            return made

        return recording

    def _queued(self, name):
        """Lambda taking an asynchronous invocation: 202, the event kept in ``handed``."""

        def queue(request, **_):
            assert request.headers["X-Amz-Invocation-Type"] == b"Event"
            self.handed[name].append(json.loads(request.body))
            return AWSResponse(request.url, 202, {}, _Body(b""))

        return queue

    def sent(self, name, service="dynamodb"):
        """(operation, parameters) of each request the function sent to ``service``."""
        return [(operation, params) for sent_to, operation, params in self.requests[name] if sent_to == service]

    def call(self, method, path, body=None, *, claims=None, headers=None, query=None, handler=None, raw=None):
        """What the function behind ``method path`` answers: (status, headers, text). POSTs say they carry JSON,
        as a browser's do (``headers`` may change or, with None, drop that); ``raw`` is a body sent as it is."""
        route, parameters = self._route(method, path)
        event = copy.deepcopy(JWT_EVENT if claims is not None else EVENT)
        if claims is not None:
            event["requestContext"]["authorizer"]["jwt"]["claims"] = claims
        raw = raw.encode() if isinstance(raw, str) else raw
        raw = raw if raw is not None else json.dumps(body).encode() if body is not None else b""
        sent = {"host": HOST} | ({"content-type": "application/json"} if method == "POST" else {}) | (headers or {})
        if raw:
            sent["content-length"] = str(len(raw))  # API Gateway passes the client's, as it does every header
        event.update(
            routeKey=f"{method} {route[1]}",
            rawPath=path,
            rawQueryString=urlencode(query or {}),
            cookies=[],
            queryStringParameters=query or None,
            headers={k: v for k, v in sent.items() if v is not None},
            pathParameters=parameters,
            body=base64.b64encode(raw).decode() if raw else None,
            isBase64Encoded=bool(raw),
        )
        event["requestContext"]["http"].update(method=method, path=path)
        answer = (handler or self.handlers[self.routes[route]])(event, None)
        text = base64.b64decode(answer["body"]).decode() if answer.get("isBase64Encoded") else answer["body"]
        return answer["statusCode"], answer["headers"], text

    def _route(self, method, path):
        for verb, template_path in self.routes:
            parts, given = template_path.strip("/").split("/"), path.strip("/").split("/")
            if (
                verb == method
                and len(parts) == len(given)
                and all(p == g or p.startswith("{") for p, g in zip(parts, given, strict=True))
            ):
                return (verb, template_path), {
                    p[1:-1]: g for p, g in zip(parts, given, strict=True) if p.startswith("{")
                } or None
        raise AssertionError(f"no function serves {method} {path}")

    def refused_by_iam(self):
        """Each recorded request that the function's policies would refuse on AWS: (function, action, partition key)."""
        return [
            (name, action, key)
            for name, requests in self.requests.items()
            for service, operation, params in requests
            if operation not in LOCAL_ONLY
            for action, resource, key in iam_requests(service, operation, params)
            if not allowed(statements(self.template, name, self.parameters), action, resource, key)
        ]


class _Body:
    """A response body botocore reads."""

    def __init__(self, content):
        self.content = content

    def stream(self, **_):
        yield self.content

    def read(self, *_):
        return self.content


def iam_requests(service, operation, params):
    """(action, resource, partition key) IAM checks for one request; a DynamoDB transaction is checked item by item.
    A function invoked is named here by its logical id (``Deployed`` sets AWS_LAMBDA_FUNCTION_NAME so)."""
    if service == "lambda":
        assert operation == "Invoke", operation
        yield "lambda:InvokeFunction", {"Fn::GetAtt": [params["FunctionName"], "Arn"]}, None
    elif service == "secretsmanager":
        yield f"secretsmanager:{operation}", params["SecretId"], None
    elif service == "ssm":
        yield f"ssm:{operation}", params["Name"], None
    elif operation == "TransactWriteItems":
        kinds = {
            "Put": "PutItem",
            "Update": "UpdateItem",
            "ConditionCheck": "ConditionCheckItem",
            "Delete": "DeleteItem",
        }
        for item in params["TransactItems"]:
            ((kind, request),) = item.items()
            yield f"dynamodb:{kinds[kind]}", TABLE_ARN, (request.get("Item") or request["Key"])["pk"]["S"]
    elif operation == "BatchGetItem":
        for request in params["RequestItems"].values():
            for key in request["Keys"]:
                yield "dynamodb:BatchGetItem", TABLE_ARN, key["pk"]["S"]
    elif operation == "Query":
        index = params.get("IndexName")
        resource = {"Fn::Sub": f"${{Table.Arn}}/index/{index}"} if index else TABLE_ARN
        yield "dynamodb:Query", resource, None if index else _queried_partition(params)
    else:
        item = params.get("Key") or params.get("Item") or {}
        yield f"dynamodb:{operation}", TABLE_ARN, item.get("pk", {}).get("S")


def _queried_partition(params):
    """The partition a Query reads: the value its KeyConditionExpression gives pk."""
    names = {"pk": "pk"} | params.get("ExpressionAttributeNames", {})
    for name, value in re.findall(r"(#?\w+) = (:\w+)", params["KeyConditionExpression"]):
        if names.get(name) == "pk":
            return params["ExpressionAttributeValues"][value]["S"]
    raise AssertionError(f"a Query on the table names no partition: {params['KeyConditionExpression']}")


def allowed(policy, action, resource, key):
    """Whether one of the statements allows the action on the resource, for an item in partition ``key``."""
    for statement in policy:
        if action not in as_list(statement["Action"]) or resource not in as_list(statement["Resource"]):
            continue
        condition = statement.get("Condition")
        if condition is None:
            return True
        assert list(condition) == ["ForAllValues:StringLike"], f"a condition this test does not read: {condition}"
        if key is not None and any(
            fnmatch.fnmatchcase(key, pattern)
            for pattern in condition["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
        ):
            return True
    return False


@pytest.fixture
def deployed(template, stack, storage_url, monkeypatch, ledger):
    deployed = Deployed(template, stack, storage_url, monkeypatch)
    yield deployed
    assert deployed.refused_by_iam() == []


@pytest.fixture
def open_deployed(template, open_stack, storage_url, monkeypatch, ledger):
    deployed = Deployed(template, open_stack, storage_url, monkeypatch)
    yield deployed
    assert deployed.refused_by_iam() == []


def shape(value):
    """A JSON value with its ids, tokens and times blanked, and who asked left out and a thread as its owner named it
    (the function's caller is signed in, so their thread is stored scoped to them; the local server's is nobody):
    what two servers answering the same turn share."""
    if isinstance(value, dict):
        kept = {k: v.partition(":")[2] or v if k == "thread" else v for k, v in value.items() if k != "asked_by"}
        return {
            k: "…" if k in ("id", "run", "token", "created_at", "when", "expires_at") else shape(v)
            for k, v in kept.items()
        }
    if isinstance(value, list):
        return [shape(v) for v in value]
    return value


def error(answer):
    status, _, text = answer
    return status, json.loads(text)["error"]


def waiting(deployed, thread, claims=ALICE):
    status, _, text = deployed.call("GET", f"/threads/{thread}/interrupts", claims=claims)
    assert status == 200, text
    return json.loads(text)["waiting"]


def paused(deployed, thread, claims=ALICE):
    """The pause a charge opens in the thread, started by ``claims``' person."""
    status, _, text = deployed.call("POST", f"/threads/{thread}/messages", CHARGE, claims=claims)
    assert status == 200, text
    return json.loads(text)["waiting"][0]


def approval(pause):
    return {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}


def test_every_http_route_answers_from_its_own_function(deployed, ledger):
    assert deployed.call("GET", "/healthz")[0] == 200
    # behind the stack's JWT authorizer: the interface reads a thread once it has a token
    assert json.loads(deployed.call("GET", "/config.json")[2]) == {**SHOP_CONFIG, "sign_in": True}
    status, headers, page = deployed.call("GET", "/")
    assert status == 200 and "<stalwart-chat" in page and "content-security-policy" in headers
    assert deployed.call("GET", "/agent-ui.js")[0] == 200
    status, _, page = deployed.call("GET", "/inbox")
    assert status == 200 and '<stalwart-inbox base="" data-signin="fragment">' in page
    pause = paused(deployed, "u-17")
    status, headers, listed = deployed.call("GET", "/threads/u-17/interrupts", claims=ALICE)
    assert json.loads(listed)["waiting"] == [pause]
    status, _, events = deployed.call(
        "GET", "/threads/u-17/stream", query={"ticket": headers["stalwart-stream-ticket"]}
    )
    assert status == 200 and events.startswith("retry: 3000") and "event: pause" in events
    status, _, done = deployed.call("POST", "/threads/u-17/resume", approval(pause), claims=ALICE)
    assert status == 200 and json.loads(done)["steps"][-1]["result"]["charge_id"] == "ch-4411"
    status, _, decided = deployed.call("GET", "/threads/u-17/decisions", claims=ALICE)
    [entry] = json.loads(decided)["decisions"]
    assert status == 200 and (entry["decision"], entry["by"]["verified"], entry["mine"]) == ("approve", "token", True)
    operator = {"stalwart-operator-token": OPERATOR}
    status, headers, exported = deployed.call("GET", "/audit", claims=ALICE, headers=operator)
    assert status == 200 and headers["content-type"].startswith("application/jsonl")
    assert [json.loads(line)["digest"] for line in exported.splitlines()] == [entry["digest"]]
    rolled = deployed.call(
        "POST", "/threads/u-17/rollback", claims=ALICE, headers={"stalwart-operator-token": OPERATOR}
    )
    assert rolled[0] == 200 and json.loads(rolled[2])["rollback"]["undone"][0]["tool"] == "charge_card"
    assert [entry["kind"] for entry in ledger()] == ["charge", "refund"]
    message = json.loads(done)["reply"]["id"]
    assert error(
        deployed.call("POST", "/threads/u-17/feedback", {"message": message, "thumb": "up"}, claims=ALICE)
    ) == (403, "forbidden")


# ------------------------------------------------------------------ who calls


def test_without_verified_claims_a_route_answers_401_and_nothing_runs(deployed, ledger):
    """API Gateway's authorizer refuses these before any function runs; a function reached without it refuses too."""
    pause = paused(deployed, "u-17")
    calls = [
        ("POST", "/threads/u-17/messages", CHARGE),
        ("GET", "/threads/u-17/interrupts", None),
        ("GET", "/interrupts", None),
        ("POST", "/threads/u-17/resume", approval(pause)),
        ("POST", "/threads/u-17/feedback", {"message": "m-1", "thumb": "up"}),
    ]
    for method, path, body in calls:
        assert error(deployed.call(method, path, body)) == (401, "unauthorized"), path
    operator = {"stalwart-operator-token": OPERATOR, "authorization": f"Bearer {OPERATOR}"}
    assert error(deployed.call("POST", "/threads/u-17/rollback", headers=operator)) == (401, "unauthorized")
    assert ledger() == []
    assert waiting(deployed, "u-17") == [pause]


def forged_token(claims):
    """A JWT a client made itself: alg none, no signature."""

    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


@pytest.mark.parametrize(
    "headers",
    [
        {"x-user": "alice"},
        {"x-forwarded-user": ALICE["sub"], "x-amzn-oidc-identity": ALICE["sub"]},
        {"authorization": f"Bearer {forged_token(ALICE)}"},
        {"x-apigateway-event": json.dumps({"requestContext": JWT_EVENT["requestContext"]})},
    ],
    ids=["x-user", "proxy-identity", "forged-jwt", "event-header"],
)
def test_a_header_the_client_sets_never_stands_in_for_claims(deployed, ledger, headers):
    pause = paused(deployed, "u-17")
    assert error(deployed.call("GET", "/threads/u-17/interrupts", headers=headers)) == (401, "unauthorized")
    assert error(deployed.call("POST", "/threads/u-17/resume", approval(pause), headers=headers)) == (
        401,
        "unauthorized",
    )
    assert error(deployed.call("POST", "/threads/u-9/messages", CHARGE, headers=headers)) == (401, "unauthorized")
    assert ledger() == [] and waiting(deployed, "u-17") == [pause]


def test_claims_without_a_subject_are_no_one(deployed):
    nobody = {k: v for k, v in ALICE.items() if k != "sub"}
    assert error(deployed.call("POST", "/threads/u-9/messages", CHARGE, claims=nobody)) == (401, "unauthorized")


@pytest.mark.parametrize(
    "other",
    [BOB, ALICE | {"iss": "https://other-provider.example/"}],
    ids=["another-subject", "same-subject-another-issuer"],
)
def test_another_persons_thread_answers_as_one_that_does_not_exist(deployed, ledger, other):
    """By the id Alice used or the id her pause shows, nothing of her thread is another's; their turn on her id
    begins their own thread, as on an id nobody used, so whether an id is taken never shows."""
    pause = paused(deployed, "u-17")
    absent = deployed.call("GET", "/threads/never-started/interrupts", claims=other)
    assert error(absent) == (404, "not_found")
    for thread in ("u-17", pause["thread"]):
        calls = [
            ("GET", f"/threads/{thread}/interrupts", None),
            ("POST", f"/threads/{thread}/resume", approval(pause)),
            ("POST", f"/threads/{thread}/feedback", {"message": "m-1", "thumb": "up"}),
        ]
        for method, path, body in calls:
            status, _, text = deployed.call(method, path, body, claims=other)
            assert (status, json.loads(text)) == (absent[0], json.loads(absent[2])), path
    taken = deployed.call("POST", "/threads/u-17/messages", CHARGE, claims=other)
    unused = deployed.call("POST", "/threads/never-used/messages", CHARGE, claims=other)
    assert (taken[0], unused[0]) == (200, 200) and json.loads(taken[2]).keys() == json.loads(unused[2]).keys()
    assert ledger() == []
    assert waiting(deployed, "u-17") == [pause]
    assert deployed.call("POST", "/threads/u-17/resume", approval(pause), claims=ALICE)[0] == 200
    assert len(ledger("charge")) == 1


def test_the_stream_opens_with_its_threads_ticket_only(deployed):
    paused(deployed, "u-17")
    _, headers, _ = deployed.call("GET", "/threads/u-17/interrupts", claims=ALICE)
    ticket = headers["stalwart-stream-ticket"]
    status, _, events = deployed.call("GET", "/threads/u-17/stream", query={"ticket": ticket})
    assert status == 200 and "event: pause" in events
    paused(deployed, "u-18")
    bobs = deployed.call("POST", "/threads/u-99/messages", {"text": "look up order 4412"}, claims=BOB)[1][
        "stalwart-stream-ticket"
    ]
    for query in (
        None,
        {"ticket": bobs},
        {"ticket": ticket[:-1] + ("0" if ticket[-1] != "0" else "1")},
        {"ticket": ""},
    ):
        assert error(deployed.call("GET", "/threads/u-17/stream", query=query)) == (401, "unauthorized"), query
    assert error(deployed.call("GET", "/threads/u-18/stream", query={"ticket": ticket})) == (401, "unauthorized")


def test_the_operator_token_travels_beside_the_persons_token(deployed, ledger):
    pause = paused(deployed, "u-17")
    assert deployed.call("POST", "/threads/u-17/resume", approval(pause), claims=ALICE)[0] == 200
    for headers in ({}, {"stalwart-operator-token": "not-the-operator-token"}):
        assert error(deployed.call("POST", "/threads/u-17/rollback", claims=ALICE, headers=headers)) == (
            403,
            "forbidden",
        )
    assert ledger("refund") == []
    assert (
        deployed.call("POST", "/threads/u-17/rollback", claims=ALICE, headers={"stalwart-operator-token": OPERATOR})[0]
        == 200
    )
    assert len(ledger("refund")) == 1


def test_without_an_authorizer_everyone_is_one_anonymous_person(open_deployed, ledger):
    pause = paused(open_deployed, "u-17", claims=None)
    assert waiting(open_deployed, "u-17", claims=BOB) == [pause]  # claims, had they come, change nothing
    assert open_deployed.call("POST", "/threads/u-17/resume", approval(pause))[0] == 200
    rolled = open_deployed.call("POST", "/threads/u-17/rollback", headers={"authorization": f"Bearer {OPERATOR}"})
    assert rolled[0] == 200 and [e["kind"] for e in ledger()] == ["charge", "refund"]


# ------------------------------------------------------------------ the browser boundary


@pytest.mark.parametrize("content_type", ["text/plain", None, "application/x-www-form-urlencoded"])
def test_a_body_that_does_not_say_it_is_json_is_refused(deployed, ledger, content_type):
    pause = paused(deployed, "u-17")
    answer = deployed.call(
        "POST", "/threads/u-17/resume", approval(pause), claims=ALICE, headers={"content-type": content_type}
    )
    assert error(answer) == (415, "unsupported_media_type")
    assert ledger() == [] and waiting(deployed, "u-17") == [pause]


def test_a_page_from_another_site_is_refused_unless_its_origin_is_listed(
    template, stack, storage_url, monkeypatch, ledger
):
    listed = Deployed(template, stack | {"AllowedOrigins": "https://shop.example"}, storage_url, monkeypatch)
    for answering, origin, status in [
        (listed, "https://shop.example", 200),
        (listed, "https://evil.example", 403),
        (listed, f"https://{HOST}", 200),
        (Deployed(template, stack, storage_url, monkeypatch), "https://shop.example", 403),
    ]:
        answer = answering.call(
            "POST", "/threads/u-1/messages", {"text": "look up order 4412"}, claims=ALICE, headers={"origin": origin}
        )
        assert answer[0] == status, (origin, answer)
    assert ledger() == []


# ------------------------------------------------------------------ the local server, races, the handler itself


def test_the_functions_answer_as_the_local_server_does(deployed, tmp_path):
    _, _, from_lambda = deployed.call("POST", "/threads/u-17/messages", CHARGE, claims=ALICE)
    with serving(make_app(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}")) as base:
        local = httpx.post(f"{base}/threads/u-17/messages", json=CHARGE).json()
        missing = httpx.post(
            f"{base}/threads/u-17/resume", json={"interrupt_id": "p_x", "decision": "approve", "token": "t"}
        )
    lambda_body = json.loads(from_lambda)
    assert shape({**lambda_body, "reply": None}) == shape({**local, "reply": None})
    lambda_missing = deployed.call(
        "POST", "/threads/u-17/resume", {"interrupt_id": "p_x", "decision": "approve", "token": "t"}, claims=ALICE
    )
    assert (lambda_missing[0], json.loads(lambda_missing[2])) == (missing.status_code, missing.json())


MINTED = (SESSION_HEADER.lower(), TICKET_HEADER.lower())
"""Headers each answer mints anew: a session where none was sent, a ticket to the thread's stream."""


def test_the_lean_functions_answer_as_fastapi_serving_the_same_route(deployed, monkeypatch):
    """The messages, resume and feedback functions serve their routes on Starlette alone (``lean_app``): each answers
    as the same function served by FastAPI (``door_app``): every error byte for byte, a turn, its answer and a thumb
    on it but for their ids and times, and every answer but for the session and the stream's ticket it mints."""
    built_lean = []

    def built(door, **options):
        built_lean.append(door)
        return lean_app(door, **options)

    monkeypatch.setattr(serve, "lean_app", built)
    lean = {name: deployed.fresh(name) for name in ("MessagesFunction", "ResumeFunction", "FeedbackFunction")}
    monkeypatch.setattr(serve, "LEAN", ())
    served = {"lean": lean, "fastapi": {name: deployed.fresh(name) for name in lean}}
    assert len(built_lean) == 3
    too_large = b'{"text": "' + b"x" * 70_000 + b'"}'

    def answered(kind, name, method, path, body=None, **options):
        status, headers, text = deployed.call(method, path, body, handler=served[kind][name], **options)
        return status, headers, text.replace(f"same-{kind}", "same")

    def minted(answer):
        """An answer with the session and the stream's ticket it mints blanked: each request mints its own."""
        status, headers, text = answer
        return status, {k: "…" if k in MINTED else v for k, v in headers.items()}, text

    def alike(answers, status):
        """The same status, headers (but the length, as ids differ) and JSON but for ids and times."""
        (lean_status, lean_headers, lean_text), fastapi = minted(answers["lean"]), minted(answers["fastapi"])
        assert lean_status == status == fastapi[0]
        assert lean_headers | {"content-length": ""} == fastapi[1] | {"content-length": ""}
        assert shape(json.loads(lean_text)) == shape(json.loads(fastapi[2]))

    turns = {
        kind: answered(kind, "MessagesFunction", "POST", f"/threads/same-{kind}/messages", CHARGE, claims=ALICE)
        for kind in served
    }
    alike(turns, 200)
    pauses = {kind: json.loads(turn[2])["waiting"][0] for kind, turn in turns.items()}

    errors = [
        ("MessagesFunction", "/threads/" + "x" * 300 + "/messages", CHARGE, {"claims": ALICE}),
        ("MessagesFunction", "/threads/t/messages", {"text": ""}, {"claims": ALICE}),
        ("MessagesFunction", "/threads/t/messages", None, {"claims": ALICE, "raw": too_large}),
        (
            "MessagesFunction",
            "/threads/t/messages",
            CHARGE,
            {"claims": ALICE, "headers": {"content-type": "text/plain"}},
        ),
        ("MessagesFunction", "/threads/t/messages", CHARGE, {}),
        ("MessagesFunction", "/threads/t/resume", CHARGE, {"claims": ALICE}),
        ("ResumeFunction", "/threads/nobody/resume", approval(pauses["lean"]), {"claims": ALICE}),
        ("ResumeFunction", "/threads/same-lean/resume", approval(pauses["lean"]), {"claims": BOB}),
        ("FeedbackFunction", "/threads/same-lean/feedback", {"message": "m-1", "thumb": "up"}, {"claims": ALICE}),
        ("FeedbackFunction", "/threads/same-lean/feedback", {"message": "m-1", "thumb": "meh"}, {"claims": ALICE}),
    ]
    statuses = []
    for name, path, body, options in errors:
        as_lean = minted(answered("lean", name, "POST", path, body, **options))
        assert as_lean == minted(answered("fastapi", name, "POST", path, body, **options))
        statuses.append(as_lean[0])
    assert statuses == [400, 400, 413, 415, 401, 404, 404, 404, 403, 400]
    for status in (200, 409):  # the answer, then the same answer again
        replies = {
            kind: answered(
                kind, "ResumeFunction", "POST", f"/threads/same-{kind}/resume", approval(pauses[kind]), claims=ALICE
            )
            for kind in served
        }
        if status == 200:
            answers = replies
        alike(replies, status)
    thumbs = {
        kind: answered(
            kind,
            "FeedbackFunction",
            "POST",
            f"/threads/same-{kind}/feedback",
            {"message": json.loads(answer[2])["reply"]["id"], "thumb": "up"},
            claims=ALICE,
            headers={"stalwart-session": answer[1]["stalwart-session"]},
        )
        for kind, answer in answers.items()
    }
    assert [json.loads(thumbs[kind][2])["thumb"] for kind in served] == ["up", "up"]
    alike({kind: (s, h, t.replace(json.loads(t)["message"], "…")) for kind, (s, h, t) in thumbs.items()}, 200)


def racing(deployed, path, body, handler):
    """Alice's POST to one cold-started function, from a thread of its own."""

    def call():
        asyncio.set_event_loop(asyncio.new_event_loop())
        return deployed.call("POST", path, body, claims=ALICE, handler=handler)

    return call


def test_two_resume_functions_racing_one_pause_run_it_once(deployed, ledger):
    for n in range(4):
        thread = f"race-{n}"
        pause = paused(deployed, thread)
        path, body = f"/threads/{thread}/resume", approval(pause)
        answers = at_once(*(racing(deployed, path, body, deployed.fresh("ResumeFunction")) for _ in range(2)))
        assert sorted(a[0] for a in answers) == [200, 409]
        assert [json.loads(a[2])["error"] for a in answers if a[0] == 409] == ["interrupt_stale"]
    assert len(ledger("charge")) == 4


def built_with(monkeypatch, environ):
    """What ``lambdas.handler`` hands the service (``lean_app`` for the messages function), for a function with this
    environment."""
    given = {}

    def make(door, **options):
        given.update(options)
        return FastAPI()

    monkeypatch.setattr(serve, "door_app", make)
    monkeypatch.setattr(serve, "lean_app", make)
    lambdas.handler("messages", {"STALWART_CONFIG": str(SHOP), "STALWART_STORAGE": "memory://"} | environ)
    return given


def test_the_handler_gives_the_service_the_functions_settings(monkeypatch):
    default = built_with(monkeypatch, {})
    assert isinstance(default["auth"], ApiGatewayClaims)
    assert default["allowed_hosts"] == ("*",) and default["allowed_origins"] == ()
    assert default["stream_mode"] == "once" and default["routes"] == ("messages",)
    assert isinstance(built_with(monkeypatch, {"STALWART_AUTH": "none"})["auth"], NoAuth)
    narrowed = built_with(
        monkeypatch,
        {
            "STALWART_ALLOWED_ORIGINS": " https://a.example ,https://b.example,",
            "STALWART_ALLOWED_HOSTS": "api.shop.example",
        },
    )
    assert narrowed["allowed_origins"] == ("https://a.example", "https://b.example")
    assert narrowed["allowed_hosts"] == ("api.shop.example",)
    with pytest.raises(RuntimeError, match=r"'jwt'.*api-gateway or none"):
        built_with(monkeypatch, {"STALWART_AUTH": "jwt"})


def test_the_handler_gives_the_service_the_stacks_link_settings(monkeypatch):
    default = built_with(monkeypatch, {})
    assert (default["public_url"], default["link_hours"], default["links_alone"]) == (None, 24, False)
    linked = {"STALWART_PUBLIC_URL": PUBLIC_URL, "STALWART_LINK_HOURS": "2", "STALWART_LINKS_ALONE": "true"}
    given = built_with(monkeypatch, linked)
    assert (given["public_url"], given["link_hours"], given["links_alone"]) == (PUBLIC_URL, 2, True)
    for wrong, said in [
        ({"STALWART_LINK_HOURS": "0"}, r"STALWART_LINK_HOURS is '0'; it takes hours above 0, at most 720"),
        ({"STALWART_LINK_HOURS": "a day"}, r"STALWART_LINK_HOURS is 'a day'"),
        ({"STALWART_LINKS_ALONE": "yes"}, r"STALWART_LINKS_ALONE is 'yes'; it takes true or false"),
    ]:
        with pytest.raises(RuntimeError, match=said):
            built_with(monkeypatch, linked | wrong)
    with pytest.raises(RuntimeError, match="STALWART_LINKS_ALONE is about signed links, which need STALWART_PUBLIC"):
        built_with(monkeypatch, {"STALWART_LINKS_ALONE": "true"})


def test_mangum_hands_the_verified_claims_to_the_service():
    """The event API Gateway passes reaches a request's scope, where ApiGatewayClaims reads it.

    List claims arrive as "[a b]"."""

    async def who(request: Request) -> JSONResponse:
        try:
            principal = ApiGatewayClaims().principal(request)
        except Unauthorized as refused:
            return JSONResponse({"error": refused.code}, status_code=401)
        return JSONResponse({"iss": principal.issuer, "sub": principal.subject, "claims": dict(principal.claims)})

    handler = Mangum(Starlette(routes=[Route("/who", who)]), lifespan="off")

    def ask(event, headers=None):
        event = copy.deepcopy(event) | {"rawPath": "/who", "rawQueryString": "", "body": None, "isBase64Encoded": False}
        event["headers"] = {"host": HOST} | (headers or {})
        event["requestContext"]["http"].update(method="GET", path="/who")
        answer = handler(event, cast("LambdaContext", None))  # the route reads nothing of the context
        return answer["statusCode"], json.loads(answer["body"])

    assert ask(JWT_EVENT) == (
        200,
        {
            "iss": ALICE["iss"],
            "sub": ALICE["sub"],
            "claims": {"groups": ["finance", "admin"], "email": "alice@shop.example", "name": "Alice Example"},
        },
    )
    assert ask(EVENT, {"x-user": "alice", "authorization": f"Bearer {forged_token(ALICE)}"}) == (
        401,
        {"error": "unauthorized"},
    )


def test_a_function_never_loads_a_jwt_library():
    """API Gateway verifies the tokens, so the layer ships no PyJWT (shared/requirements.txt)."""
    event = copy.deepcopy(JWT_EVENT) | {
        "rawPath": "/threads/u-1/messages",
        "rawQueryString": "",
        "isBase64Encoded": False,
    }
    event |= {
        "body": json.dumps({"text": "look up order 4412"}),
        "headers": {"host": HOST, "content-type": "application/json"},
    }
    event["requestContext"]["http"].update(method="POST", path="/threads/u-1/messages")
    script = (
        "import json, sys\n"
        "from stalwart_agents.aws.handlers import handler\n"
        f"environ = {{'STALWART_CONFIG': {str(SHOP)!r}, 'STALWART_STORAGE': 'memory://'}}\n"
        "answer = handler('messages', environ)(json.loads(sys.argv[1]), None)\n"
        "assert answer['statusCode'] == 200, answer\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jwt', 'cryptography')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(event)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]"


# ------------------------------------------------------------------ the fan-out, fed what the stream really holds


def stream_records(storage_url):
    """Every record the table's stream holds now, as Lambda would be handed them."""
    table = storage_url.split("://")[1].split("?")[0]
    endpoint = storage_url.split("endpoint=")[1]
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    streams = boto3.client("dynamodbstreams", region_name="us-east-1", endpoint_url=endpoint)
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")[
        "ShardIterator"
    ]
    return streams.get_records(ShardIterator=iterator)["Records"]


def filtered(template, records, parameters=None):
    """The records the template's FilterCriteria lets through to the fan-out, for a stack with these parameters."""
    patterns = [json.loads(f["Pattern"]) for f in fan_out_filters(template, parameters or {"WebhookUrl": "https://x"})]
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
    assert delivery_of(desk.storage, pause.id)["delivered"] is True


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


# ------------------------------------------------------------------ secrets, the sweep and the fan-out, as deployed


def test_each_function_reads_its_own_secrets_once_at_cold_start(deployed, template, stack):
    """The operator token from Secrets Manager, the model key from an SSM SecureString: each by the functions that
    need it, before the first request, and by no other (their policies allow nothing else: the fixture checks)."""
    deployed.invoke(sweep(template), SCHEDULED)
    deployed.invoke(clock(template), SCHEDULED)
    for name in deployed.requests:
        route = route_of(functions(template)[name])
        read = sorted(
            (service, operation) for service, operation, _ in deployed.requests[name] if service != "dynamodb"
        )
        turns = ("messages", "resume", "rollback", "sweep", "links", "clock")
        expected = [("ssm", "GetParameter")] if route in turns else []
        expected += [("secretsmanager", "GetSecretValue")] if route == "rollback" else []
        assert read == sorted(expected), name
    for thread in ("u-17", "u-18"):
        paused(deployed, thread)
    assert [op for service, op, _ in deployed.requests["MessagesFunction"] if service == "ssm"] == ["GetParameter"]


def died_mid_charge(storage_url, pause, tmp_path):
    """A worker that took the approval, journaled the charge `started`, and was killed inside it.

    The shop's charge appends to its ledger; a FIFO there holds the worker in that call until it is killed."""
    fifo = tmp_path / "ledger.fifo"
    os.mkfifo(fifo)
    script = (
        "import sys\nfrom stalwart_agents import Desk\n"
        "desk = Desk.from_file(sys.argv[1], storage=sys.argv[2])\n"
        "desk.confirm(sys.argv[3], 'approve', waiting=sys.argv[4], token=sys.argv[5])\n"
    )
    args = [str(SHOP), storage_url, pause["thread"], pause["id"], pause["token"]]
    worker = subprocess.Popen(
        [sys.executable, "-c", script, *args], env={**os.environ, "STALWART_SHOP_LEDGER": str(fifo)}
    )
    store = Desk.from_file(SHOP, storage=storage_url).storage
    try:
        for _ in range(600):
            if any(entry.status == "started" for entry in store.journal(pause["run"])):
                break
            assert worker.poll() is None, "the worker ended before it got into the charge"
            time.sleep(0.05)
        else:
            raise AssertionError("the worker never journaled the charge")
    finally:
        worker.kill()
        worker.wait(timeout=30)


def expire_lease(storage_url, run_id):
    """What the clock does to a dead worker's lease, done at once: it lies in the past."""
    table, endpoint = storage_url.split("://")[1].split("?")[0], storage_url.split("endpoint=")[1]
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    client.update_item(
        TableName=table,
        Key={"pk": {"S": f"R#{run_id}"}, "sk": {"S": "RUN"}},
        UpdateExpression="SET lease_until = :past",
        ExpressionAttributeValues={":past": {"N": "1"}},
    )


def written(deployed, name):
    """The writes a function sent, but the session key's (K#session, on a first start)."""
    return [
        (operation, params)
        for operation, params in deployed.sent(name)
        if operation in WRITES
        and not (params.get("Item") or params.get("Key") or {}).get("pk", {}).get("S", "").startswith("K#")
    ]


def test_reading_a_run_whose_worker_died_writes_nothing_and_the_sweep_carries_it_on(
    deployed, template, storage_url, ledger, tmp_path
):
    pause = paused(deployed, "u-17")
    died_mid_charge(storage_url, pause, tmp_path)
    expire_lease(storage_url, pause["run"])

    status, headers, _ = deployed.call("GET", "/threads/u-17/interrupts", claims=ALICE)
    assert status == 200
    status, _, _ = deployed.call("GET", "/threads/u-17/stream", query={"ticket": headers["stalwart-stream-ticket"]})
    assert status == 200
    assert deployed.sent("InterruptsFunction") and deployed.sent("StreamFunction")  # they did read the run
    assert written(deployed, "InterruptsFunction") == written(deployed, "StreamFunction") == []

    swept = deployed.invoke(sweep(template), SCHEDULED)
    assert swept["recovered"] == [pause["run"]] and swept["failed"] == []
    [asked] = waiting(deployed, "u-17")
    assert (asked["kind"], asked["tool"]) == ("outcome_unknown", "charge_card")
    assert swept["opened"] == [asked["id"]]
    assert ledger("charge") == []  # the charge never reached the shop's ledger, and nothing ran it again
    assert deployed.invoke(sweep(template), SCHEDULED)["recovered"] == []  # carried on once


def test_the_deployed_fan_out_posts_each_pause_once_with_the_secret_it_read(
    template, stack, storage_url, monkeypatch, receiver
):
    deployed = Deployed(template, stack | {"WebhookUrl": receiver.url}, storage_url, monkeypatch)
    fanout = fan_out(template)
    pause = paused(deployed, "u-17")
    records = filtered(template, stream_records(storage_url))
    batch = {"Records": json.loads(json.dumps(records, default=str))}
    assert deployed.invoke(fanout, batch) == {"batchItemFailures": []}
    assert deployed.invoke(fanout, batch) == {"batchItemFailures": []}  # Lambda retrying the batch whole
    [delivery] = receiver.got  # signed with the secret Secrets Manager holds: the receiver checked it
    assert delivery["interrupt"]["id"] == pause["id"]
    assert [op for service, op, _ in deployed.requests[fanout] if service == "secretsmanager"] == ["GetSecretValue"]
    assert deployed.refused_by_iam() == []


def test_a_batch_handed_over_again_while_another_invocation_holds_its_claim_is_allowed_every_read(
    template, stack, storage_url, monkeypatch, receiver
):
    """Lambda hands a batch over again while the invocation that claimed its delivery still runs: the fan-out finds
    the pause by id (index by_id) to tell whether that one delivered it, and its role lets it, so the record is
    left for a retry rather than failing the batch on AccessDenied."""
    deployed = Deployed(template, stack | {"WebhookUrl": receiver.url}, storage_url, monkeypatch)
    fanout = fan_out(template)
    pause = paused(deployed, "u-17")
    records = json.loads(json.dumps(filtered(template, stream_records(storage_url)), default=str))
    desk = Desk.from_file(SHOP, storage=storage_url)
    assert desk.storage.claim_delivery(pause["run"], pause["id"], time.time(), 30.0)  # the first invocation's claim
    assert deployed.invoke(fanout, {"Records": records}) == {
        "batchItemFailures": [{"itemIdentifier": records[0]["dynamodb"]["SequenceNumber"]}]
    }
    assert receiver.got == []
    assert "by_id" in {params.get("IndexName") for operation, params in deployed.sent(fanout) if operation == "Query"}
    assert deployed.refused_by_iam() == []


# ------------------------------------------------------------------ the inbox, across threads


def inbox(deployed, claims, **query):
    """Every page of GET /interrupts for ``claims``' person, read on by its cursor: the pauses' ids, in order."""
    listed, query = [], {k: str(v) for k, v in query.items()}
    while True:
        status, _, text = deployed.call("GET", "/interrupts", claims=claims, query=query)
        assert status == 200, text
        page = json.loads(text)
        listed += [pause["id"] for pause in page["waiting"]]
        if page["next"] is None:
            return listed
        query["cursor"] = page["next"]


def test_the_inbox_lists_each_persons_own_pauses_by_default(deployed):
    alices, bobs = paused(deployed, "u-17"), paused(deployed, "u-18", claims=BOB)
    assert inbox(deployed, ALICE) == [alices["id"]]
    assert inbox(deployed, BOB) == [bobs["id"]]
    sent = deployed.sent("InterruptsFunction")
    assert "Scan" not in {operation for operation, _ in sent} and "BatchGetItem" in {operation for operation, _ in sent}
    assert "inbox" in {params.get("IndexName") for operation, params in sent if operation == "Query"}


@pytest.fixture
def finance(tmp_path):
    """The shop with an approver rule: whoever the authorizer says is in finance answers every charge."""
    config = tmp_path / "agent.yaml"
    text = SHOP.read_text().replace("tools: tools.py", f"tools: {SHOP.parent / 'tools.py'}")
    config.write_text(text.replace("    check:\n", FINANCE.lstrip("\n") + "    check:\n", 1))
    return config


def test_the_inbox_lists_what_the_approver_rules_let_each_person_answer(
    template, stack, storage_url, monkeypatch, ledger, finance
):
    """Alice's groups claim says finance, Bob's support: she sees (and answers) every charge, his too; he sees none,
    not even his own. Paged by its cursor, filtered by kind and tool, read by the index, never a scan."""
    deployed = Deployed(template, stack, storage_url, monkeypatch, config=finance)
    alices, bobs = paused(deployed, "u-17"), paused(deployed, "u-18", claims=BOB)
    assert inbox(deployed, ALICE) == inbox(deployed, ALICE, limit=1) == [bobs["id"], alices["id"]]  # newest first
    assert inbox(deployed, ALICE, kind="confirm", tool="charge_card") == [bobs["id"], alices["id"]]
    assert inbox(deployed, ALICE, tool="send_mail") == inbox(deployed, ALICE, kind="ask") == []
    assert inbox(deployed, BOB) == []
    assert error(deployed.call("POST", "/threads/u-18/resume", approval(bobs), claims=BOB)) == (403, "not_an_approver")
    assert deployed.call("POST", f"/threads/{bobs['thread']}/resume", approval(bobs), claims=ALICE)[0] == 200
    assert len(ledger("charge")) == 1 and inbox(deployed, ALICE) == [alices["id"]]
    assert not [op for op, _ in deployed.sent("InterruptsFunction") if op == "Scan"]
    assert deployed.refused_by_iam() == []


# ------------------------------------------------------------------ signed links, minted by the fan-out


def linked_stack(stack, receiver, **parameters):
    return stack | {"WebhookUrl": receiver.url, "PublicUrl": PUBLIC_URL} | parameters


def delivered_links(deployed, template, storage_url, receiver):
    """What the fan-out posts for the newest pause the stream brings: its links, by decision."""
    records = filtered(template, stream_records(storage_url))
    batch = {"Records": json.loads(json.dumps(records, default=str))}
    assert deployed.invoke(fan_out(template), batch) == {"batchItemFailures": []}
    links = receiver.got[-1]["links"]
    assert all(url.startswith(f"{PUBLIC_URL}/links/") for url in links.values())
    return {decision: urlsplit(url).path for decision, url in links.items()}


def test_a_link_shows_its_call_asks_to_sign_in_and_answers_for_the_signed_in_person(
    template, stack, storage_url, monkeypatch, receiver, ledger
):
    deployed = Deployed(template, linked_stack(stack, receiver), storage_url, monkeypatch)
    pause = paused(deployed, "u-17")
    links = delivered_links(deployed, template, storage_url, receiver)
    assert sorted(links) == sorted(pause["answers"])
    for _ in range(2):  # a mail scanner's prefetch, then the person: neither acts
        status, headers, page = deployed.call("GET", links["approve"])
        assert (
            status == 200
            and "Charge 40.00 EUR to order 4411" in page
            and "sign in" in page
            and f'{PUBLIC_URL}/inbox"' in page
        )
        assert "<form" not in page and headers["cache-control"] == "no-store"
    assert ledger() == [] and waiting(deployed, "u-17") == [pause]
    # the authorizer guards the POST (tests/test_template.py); reached without its claims, the function refuses too
    assert deployed.call("POST", links["approve"], headers=FORM)[0] == 401
    assert deployed.call("POST", links["approve"], claims=BOB, headers=FORM)[0] == 403
    assert ledger() == []
    status, _, page = deployed.call("POST", links["approve"], claims=ALICE, headers=FORM)
    assert status == 200 and "Answer taken" in page
    assert deployed.call("POST", links["approve"], claims=ALICE, headers=FORM)[0] == 409
    assert deployed.call("POST", links["skip"], claims=ALICE, headers=FORM)[0] == 409
    assert len(ledger("charge")) == 1
    assert [op for service, op, _ in deployed.requests["LinksFunction"] if service == "ssm"] == ["GetParameter"]
    assert deployed.refused_by_iam() == []


def test_a_link_alone_answers_once_without_signing_in(template, stack, storage_url, monkeypatch, receiver, ledger):
    parameters = linked_stack(stack, receiver, LinksAlone="true", LinkHours="2")
    deployed = Deployed(template, parameters, storage_url, monkeypatch)
    paused(deployed, "u-17")
    links = delivered_links(deployed, template, storage_url, receiver)
    status, _, page = deployed.call("GET", links["approve"])
    assert status == 200 and '<form method="post">' in page and ledger() == []
    status, _, page = deployed.call("POST", links["approve"], headers=FORM)
    assert status == 200 and "Answer taken" in page
    assert deployed.call("POST", links["approve"], headers=FORM)[0] == 409
    assert len(ledger("charge")) == 1 and waiting(deployed, "u-17") == []
    assert deployed.refused_by_iam() == []


def test_without_a_public_url_deliveries_carry_no_links_and_the_links_function_answers_404(
    template, stack, storage_url, monkeypatch, receiver
):
    deployed = Deployed(template, stack | {"WebhookUrl": receiver.url}, storage_url, monkeypatch)
    paused(deployed, "u-17")
    records = filtered(template, stream_records(storage_url))
    deployed.invoke(fan_out(template), {"Records": json.loads(json.dumps(records, default=str))})
    assert "links" not in receiver.got[-1]
    status, _, answered = deployed.call("GET", "/links/anything")
    assert status == 404 and json.loads(answered)["error"] == "not_found"
    assert deployed.refused_by_iam() == []
