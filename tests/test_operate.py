"""Operating the stack: secrets read from their ARNs at cold start, each invocation's log lines and metrics as the
on-call engineer reads them (and no capability in them), and a fan-out batch that Lambda retries posting once."""

import base64
import copy
import json
import logging
import os
import subprocess
import sys
import uuid
from types import SimpleNamespace
from urllib.parse import urlencode

import boto3
import pytest
from moto import mock_aws

from stalwart_agents import Desk, InterruptStale, Webhook
from stalwart_agents.aws.fanout import HOLD, deliver
from stalwart_agents.aws.handlers import FunctionEnvironment, handler
from stalwart_agents.aws.metrics import meter_from_environ
from stalwart_agents.aws.secrets import SecretUnreadable

from .conftest import ROOT, SHOP
from .server import receiving
from .test_lambda import stream_records

EVENT = json.loads((ROOT / "tests" / "events" / "http_api.json").read_text())
CHARGE = {"text": "look up order 4411 and charge 40 to order 4411"}
BASE = {"STALWART_CONFIG": str(SHOP), "STALWART_AUTH": "none"}
REGION = "us-east-1"


@pytest.fixture
def aws(fake_aws):
    """Secrets Manager and SSM as moto mocks them, in this process."""
    with mock_aws():
        yield SimpleNamespace(
            secret=lambda name, value: boto3.client("secretsmanager", REGION).create_secret(
                Name=name, SecretString=value
            )["ARN"],
            parameter=lambda name, value: _parameter(name, value),
        )


def _parameter(name, value):
    ssm = boto3.client("ssm", REGION)
    ssm.put_parameter(Name=name, Value=value, Type="SecureString")
    return ssm.get_parameter(Name=name)["Parameter"]["ARN"]


@pytest.fixture
def storage(tmp_path):
    """One store every function of a test shares, as the stack's functions share the table."""
    return f"sqlite:///{tmp_path / 'runs.db'}"


@pytest.fixture
def powertools(monkeypatch):
    """The stack's Powertools settings, under a service name of this test's own: Powertools keeps a logger per name."""
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", f"stalwart-{uuid.uuid4().hex[:8]}")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "Stalwart")
    yield {"POWERTOOLS_SERVICE_NAME": os.environ["POWERTOOLS_SERVICE_NAME"], "POWERTOOLS_METRICS_NAMESPACE": "Stalwart"}
    service_log = logging.getLogger("stalwart_agents")
    service_log.handlers, service_log.propagate = [], True


def call(function, method, path, body=None, *, query=None, headers=None, request="req-1"):
    """What a function answers an API Gateway v2 event: (status, headers, text)."""
    event = copy.deepcopy(EVENT)
    raw = json.dumps(body).encode() if body is not None else b""
    sent = (
        {"host": "id.execute-api.us-east-1.amazonaws.com"}
        | ({"content-type": "application/json"} if raw else {})
        | (headers or {})
    )
    thread = path.split("/")[2] if path.startswith("/threads/") else None
    event.update(
        rawPath=path,
        rawQueryString=urlencode(query or {}),
        queryStringParameters=query or None,
        headers=sent,
        cookies=[],
        pathParameters={"id": thread} if thread else None,
        body=base64.b64encode(raw).decode() if raw else None,
        isBase64Encoded=bool(raw),
    )
    event["requestContext"]["http"].update(method=method, path=path)
    answer = function(event, SimpleNamespace(aws_request_id=request))
    text = base64.b64decode(answer["body"]).decode() if answer.get("isBase64Encoded") else answer["body"]
    return answer["statusCode"], answer["headers"], text


def lines(captured):
    """Each JSON line a function wrote to its log (stdout, where Lambda sends it to CloudWatch)."""
    return [json.loads(line) for line in captured.splitlines() if line.startswith("{")]


def metrics(logged, name):
    """The embedded-metric lines that carry ``name``."""
    return [line for line in logged if name in line and "_aws" in line]


# ------------------------------------------------------------------ secrets, from their ARNs at cold start


def test_each_secret_is_read_from_the_arn_the_stack_gives(aws, monkeypatch):
    environ = BASE | {
        "STALWART_STORAGE": "memory://",
        "STALWART_OPERATOR_TOKEN_ARN": aws.secret("operator", "operator-from-secrets-manager"),
        "STALWART_RESUME_SECRET_ARN": aws.parameter("/stalwart/resume", "resume-from-ssm"),
        "STALWART_MODEL_KEY_ARN": aws.secret("model", "sk-model-key"),
        "STALWART_MODEL_KEY_ENV": "SHOP_MODEL_KEY",
        "QLS_OPERATOR_TOKEN": "ignored-where-an-arn-is-set",
    }
    settings = FunctionEnvironment.from_environ(environ)
    assert settings.operator_token == "operator-from-secrets-manager"
    assert settings.resume_secret == "resume-from-ssm"
    assert "operator-from" not in repr(settings) and "sk-model" not in repr(settings)
    monkeypatch.delenv("SHOP_MODEL_KEY", raising=False)
    handler("healthz", environ)
    assert os.environ["SHOP_MODEL_KEY"] == "sk-model-key"


def test_the_operator_token_from_secrets_manager_opens_the_rollback_route(aws, storage, ledger):
    environ = BASE | {
        "STALWART_STORAGE": storage,
        "STALWART_OPERATOR_TOKEN_ARN": aws.secret("operator", "op-secret-value"),
    }
    messages, resume, rollback = (handler(route, environ) for route in ("messages", "resume", "rollback"))
    pause = json.loads(call(messages, "POST", "/threads/u-1/messages", CHARGE)[2])["waiting"][0]
    answer = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
    assert call(resume, "POST", "/threads/u-1/resume", answer)[0] == 200
    assert call(rollback, "POST", "/threads/u-1/rollback", headers={"authorization": "Bearer not-it"})[0] == 403
    assert (
        call(rollback, "POST", "/threads/u-1/rollback", headers={"authorization": "Bearer op-secret-value"})[0] == 200
    )
    assert [entry["kind"] for entry in ledger()] == ["charge", "refund"]


def test_plain_variables_still_work_where_no_arn_is_set():
    settings = FunctionEnvironment.from_environ(
        BASE | {"STALWART_STORAGE": "memory://", "QLS_OPERATOR_TOKEN": "local", "STALWART_RESUME_SECRET": "r"}
    )
    assert (settings.operator_token, settings.resume_secret, settings.model_key) == ("local", "r", None)


@pytest.mark.parametrize(
    ("variable", "arn"),
    [
        ("STALWART_OPERATOR_TOKEN_ARN", f"arn:aws:secretsmanager:{REGION}:123456789012:secret:never-made-AbCdEf"),
        ("STALWART_RESUME_SECRET_ARN", f"arn:aws:ssm:{REGION}:123456789012:parameter/never/made"),
        ("STALWART_MODEL_KEY_ARN", "sk-the-key-itself-pasted-by-mistake"),
    ],
    ids=["secrets-manager", "ssm", "not-an-arn"],
)
def test_a_secret_that_cannot_be_read_stops_the_cold_start_naming_its_variable(aws, variable, arn):
    environ = BASE | {"STALWART_STORAGE": "memory://", "STALWART_MODEL_KEY_ENV": "SHOP_MODEL_KEY", variable: arn}
    with pytest.raises(SecretUnreadable, match=variable) as refused:
        handler("healthz", environ)
    assert "sk-the-key" not in str(refused.value)


def test_a_model_key_arn_without_the_variable_to_put_it_in_is_refused(aws):
    with pytest.raises(SecretUnreadable, match="STALWART_MODEL_KEY_ENV"):
        FunctionEnvironment.from_environ(
            BASE | {"STALWART_STORAGE": "memory://", "STALWART_MODEL_KEY_ARN": aws.secret("m", "k")}
        )


# ------------------------------------------------------------------ logs and metrics


def test_each_line_carries_the_request_and_thread_and_no_capability(powertools, storage, capsys):
    environ = BASE | {"STALWART_STORAGE": storage} | powertools
    messages, stream = handler("messages", environ), handler("stream", environ)
    _, headers, text = call(messages, "POST", "/threads/u-7/messages", CHARGE, request="req-turn")
    pause = json.loads(text)["waiting"][0]
    ticket = headers["stalwart-stream-ticket"]
    assert call(stream, "GET", "/threads/u-7/stream", query={"ticket": ticket}, request="req-stream")[0] == 200
    captured = capsys.readouterr().out
    answered = [line for line in lines(captured) if line.get("message") == "answered"]
    assert [(line["request_id"], line["thread"], line["route"], line["status"]) for line in answered] == [
        ("req-turn", "u-7", "messages", 200),
        ("req-stream", "u-7", "stream", 200),
    ]
    assert all(line["service"] == powertools["POWERTOOLS_SERVICE_NAME"] for line in answered)
    assert [line["cold_start"] for line in answered] == [True, True]
    assert ticket not in captured and pause["token"] not in captured


def test_a_refused_answer_is_counted_by_its_code(powertools, storage, capsys):
    environ = BASE | {"STALWART_STORAGE": storage} | powertools
    messages, resume = handler("messages", environ), handler("resume", environ)
    pause = json.loads(call(messages, "POST", "/threads/u-7/messages", CHARGE)[2])["waiting"][0]
    answer = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
    assert call(resume, "POST", "/threads/u-7/resume", answer)[0] == 200
    status, _, text = call(resume, "POST", "/threads/u-7/resume", answer)
    assert status == 409
    [refused] = metrics(lines(capsys.readouterr().out), "AnswersRefused")
    assert refused["AnswersRefused"] == [1.0] and refused["code"] == json.loads(text)["error"] == "interrupt_stale"
    assert refused["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Stalwart"


def test_without_powertools_settings_nothing_of_it_is_loaded():
    """A laptop or a test pays nothing for it: the handler is built without importing Powertools."""
    script = (
        "import sys\n"
        "from stalwart_agents.aws.handlers import handler\n"
        f"handler('messages', {{'STALWART_CONFIG': {str(SHOP)!r}, 'STALWART_STORAGE': 'memory://'}})\n"
        "heavy = {'aws_lambda_powertools', 'aws_xray_sdk', 'numpy', 'py3langid'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]"


# ------------------------------------------------------------------ the fan-out, retried by Lambda


@pytest.fixture
def table(dynamodb_url):
    return dynamodb_url


@pytest.fixture
def receiver():
    with receiving("whsec-operate") as received:
        yield received


def new_pauses(storage_url):
    return [
        r
        for r in stream_records(storage_url)
        if r["eventName"] == "INSERT" and r["dynamodb"]["Keys"]["sk"]["S"].startswith("P#")
    ]


def test_a_batch_delivered_twice_posts_each_pause_once(table, receiver, ledger):
    desk = Desk.from_file(SHOP, storage=table)
    first = desk.send("u-1", "charge 40 to order 4411").waiting[0]
    second = desk.send("u-2", "charge 40 to order 4412").waiting[0]
    batch = new_pauses(table)
    webhook = Webhook(receiver.url, "whsec-operate")
    assert deliver(batch, desk.storage, webhook) == []
    assert deliver(batch, desk.storage, webhook) == []
    assert sorted(posted["interrupt"]["id"] for posted in receiver.got) == sorted([first.id, second.id])


def test_a_claim_another_invocation_holds_leaves_the_record_for_a_retry(table, receiver, ledger):
    desk = Desk.from_file(SHOP, storage=table)
    pause = desk.send("u-1", "charge 40 to order 4411").waiting[0]
    batch = new_pauses(table)
    assert desk.storage.claim_delivery(pause.run, pause.id, 1000.0, HOLD)
    webhook = Webhook(receiver.url, "whsec-operate")
    assert deliver(batch, desk.storage, webhook, clock=lambda: 1000.0 + HOLD / 2) == [
        batch[0]["dynamodb"]["SequenceNumber"]
    ]
    assert receiver.got == []
    assert deliver(batch, desk.storage, webhook, clock=lambda: 1000.0 + HOLD + 1) == []
    assert [posted["interrupt"]["id"] for posted in receiver.got] == [pause.id]


def test_a_failed_delivery_is_counted(table, receiver, powertools, capsys, ledger):
    receiver.status = 503
    desk = Desk.from_file(SHOP, storage=table)
    desk.send("u-1", "charge 40 to order 4411")
    failed = deliver(
        new_pauses(table),
        desk.storage,
        Webhook(receiver.url, "whsec-operate", attempts=1),
        meter=meter_from_environ(powertools),
    )
    assert len(failed) == 1
    [counted] = metrics(lines(capsys.readouterr().out), "DeliveriesFailed")
    assert counted["DeliveriesFailed"] == [1.0] and counted["service"] == powertools["POWERTOOLS_SERVICE_NAME"]


# ------------------------------------------------------------------ a layer without the language model


def test_without_py3langid_no_language_is_named_and_turns_still_answer(monkeypatch, desk):
    from stalwart_agents.reading import language

    monkeypatch.setitem(sys.modules, "py3langid.langid", None)
    monkeypatch.setattr(language, "_identifier", None)
    monkeypatch.setattr(language, "_absent", False)
    assert language.detect("quero cancelar a minha encomenda, por favor") is None
    answered = desk.send("u-1", "quero cancelar a minha encomenda, por favor").to_dict()
    assert [pause["reasons"] for pause in answered["waiting"]] == [["unread"]]
    assert "Portuguese" not in answered["reply"]["text"]


class Counting:
    """A meter that keeps what it is told."""

    def __init__(self):
        self.seen = []

    def pause_opened(self, kind):
        self.seen.append(("opened", kind))

    def answer_taken(self, kind, seconds):
        self.seen.append(("taken", kind, seconds))

    def answer_refused(self, code):
        self.seen.append(("refused", code))

    def delivery_failed(self):
        self.seen.append(("failed",))


def test_the_desk_tells_its_meter_of_each_pause_opened_and_how_long_its_answer_took(ledger):
    now = [1_700_000_000.0]
    meter = Counting()
    with Desk.from_file(SHOP, storage="memory://", clock=lambda: now[0], meter=meter) as desk:
        [pause] = desk.send("u-1", CHARGE["text"]).waiting
        now[0] += 90
        desk.confirm("u-1", "approve", pause)
        with pytest.raises(InterruptStale):
            desk.confirm("u-1", "approve", pause)
    assert meter.seen == [("opened", "confirm"), ("taken", "confirm", 90.0)]
    assert len(ledger("charge")) == 1
