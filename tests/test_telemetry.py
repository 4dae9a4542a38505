"""OpenTelemetry, in one process: the spans and figures of a turn, a pause, its delivery and its answer, read from
the SDK's in-memory exporter and reader; and what no span may carry."""

import hashlib
import json
import os
import subprocess
import sys

import httpx
import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from stalwart_agents import Desk, telemetry
from stalwart_agents.approvals.card import card_of
from stalwart_agents.approvals.webhook import Webhook
from stalwart_agents.engine.pause import Pause
from stalwart_agents.errors import BadRequest, InterruptStale
from stalwart_agents.http.app import make_app
from stalwart_agents.storage import open_storage
from stalwart_agents.storage.keys import approver_reference
from stalwart_agents.telemetry.on import On
from stalwart_agents.telemetry.setup import _sampler as sampler
from stalwart_agents.telemetry.switch import OFF

from .conftest import ROOT, SHOP, present
from .server import serving

SECRET = "whsec-telemetry-test-secret"
CALLER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
"""A trace the client of the service is in, sent as its ``traceparent``."""


class Traced:
    def __init__(self, capture=False):
        self.spans, self.reader = InMemorySpanExporter(), InMemoryMetricReader()
        tracer = TracerProvider(sampler=sampler({}))  # as the service samples where it sets the SDK up itself
        tracer.add_span_processor(SimpleSpanProcessor(self.spans))
        self.on = On(tracer, MeterProvider(metric_readers=[self.reader]), capture=capture)

    def named(self, name):
        return [s for s in self.spans.get_finished_spans() if s.name == name]

    def one(self, name):
        found = self.named(name)
        assert len(found) == 1, [s.name for s in self.spans.get_finished_spans()]
        return found[0]

    def figures(self):
        """Each metric's points as (attributes, value), by name."""
        data = self.reader.get_metrics_data()
        points = {}
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    points[metric.name] = [
                        (dict(p.attributes or {}), p.value if hasattr(p, "value") else p.count)
                        for p in metric.data.data_points
                    ]
        return points

    def every_value(self):
        """Every attribute, event and link value of every span, and every metric attribute, as text."""
        values = []
        for span in self.spans.get_finished_spans():
            values += [str(v) for v in (span.attributes or {}).values()]
            values += [str(v) for event in span.events for v in (event.attributes or {}).values()]
            values.append(span.name)
        values += [
            str(v) for points in self.figures().values() for attributes, _ in points for v in attributes.values()
        ]
        return values


@pytest.fixture
def traced():
    recorder = Traced()
    telemetry.use(recorder.on)
    yield recorder
    telemetry.use(OFF)


@pytest.fixture
def captured():
    recorder = Traced(capture=True)
    telemetry.use(recorder.on)
    yield recorder
    telemetry.use(OFF)


class Hook:
    """A webhook receiver inside httpx: it keeps each delivery's headers and body."""

    def __init__(self):
        self.requests = []
        self.transport = httpx.MockTransport(self.take)

    def take(self, request):
        self.requests.append(request)
        return httpx.Response(200)


def test_the_environment_decides_whether_telemetry_is_on():
    assert not telemetry.wanted({})
    assert telemetry.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert telemetry.wanted({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"})
    assert telemetry.wanted({"OTEL_TRACES_EXPORTER": "otlp"})
    assert not telemetry.wanted({"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"})
    endpoint_but_none = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "x",
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_METRICS_EXPORTER": "none",
    }
    assert not telemetry.wanted(endpoint_but_none)
    assert not telemetry.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"})


OFF_PROGRAM = """
import sys
from stalwart_agents import Desk
desk = Desk.from_file({shop!r}, storage="memory://")
desk.send("u", "charge 40 to order 4411")
desk.confirm("u", "approve")
print(sorted(m for m in sys.modules if m.startswith(("opentelemetry.sdk", "opentelemetry.exporter", "google.protobuf",
    "stalwart_agents.telemetry."))))
"""


def test_off_nothing_of_the_sdk_is_imported_and_a_pause_keeps_no_trace(tmp_path):
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", OFF_PROGRAM.format(shop=str(SHOP))],
        capture_output=True,
        text=True,
        env=environ | {"STALWART_SHOP_LEDGER": str(tmp_path / "ledger.jsonl")},
        cwd=ROOT,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1].replace("'", '"')) == [
        "stalwart_agents.telemetry.off",
        "stalwart_agents.telemetry.switch",
    ]


def test_a_pause_opened_off_keeps_nothing_of_a_trace(ledger):
    desk = Desk.from_file(SHOP, storage="memory://")
    pause = desk.send("u", "charge 40 to order 4411").waiting[0]
    assert "traceparent" not in present(desk.storage.get_pause(pause.id)).payload


def test_a_turn_and_its_answer_over_http_are_one_trace_with_the_wait_in_it(traced, ledger):
    hook = Hook()
    desk = Desk.from_file(SHOP, storage="memory://")
    app = make_app(desk, on_interrupt=Webhook("https://hooks.example/in", SECRET, transport=hook.transport))
    with serving(app) as base, httpx.Client(base_url=base) as client:
        turn = client.post("/threads/t-1/messages", json={"text": "charge 40 to order 4411"}).json()
        pause = turn["waiting"][0]
        delivered = hook.requests[0]
        body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
        answered = client.post(
            "/threads/t-1/resume", json=body, headers={"traceparent": delivered.headers["traceparent"]}
        )
        assert answered.status_code == 200, answered.text
        listed = client.get("/threads/t-1/interrupts").text

    turn_span, approval = traced.one("stalwart.turn"), traced.one("stalwart.approval")
    trace_id = turn_span.context.trace_id
    request = traced.one("POST /threads/{thread}/messages")
    assert request.attributes["http.request.method"] == "POST"
    assert request.attributes["http.route"] == "/threads/{thread}/messages"
    assert request.attributes["http.response.status_code"] == 200
    assert turn_span.parent.span_id == request.context.span_id

    # the wait: from the pause's opening to its answer, under the turn it opened in
    assert approval.context.trace_id == trace_id and approval.parent.span_id == turn_span.context.span_id
    stored = present(desk.storage.get_pause(pause["id"]))
    # opened when the pause was, to the millisecond its JSON says (which rounds: within two of the stored time)
    assert abs(approval.start_time - stored.created_at * 1e9) < 2e6
    assert approval.end_time > approval.start_time
    assert approval.attributes["stalwart.pause.kind"] == "confirm"
    assert approval.attributes["gen_ai.tool.name"] == "charge_card"
    assert approval.attributes["stalwart.decision"] == "approve"
    assert approval.attributes["stalwart.channel"] == "http"
    assert "gen_ai.tool.call.arguments" not in approval.attributes

    # the delivery and the webhook's header: the same trace, the header naming the delivery's span
    deliver = traced.one("deliver webhook")
    assert deliver.context.trace_id == trace_id
    assert deliver.attributes["stalwart.delivery.outcome"] == "delivered"
    assert delivered.headers["traceparent"].startswith(f"00-{trace_id:032x}-{deliver.context.span_id:016x}-")
    resumed = traced.one("POST /threads/{thread}/resume")
    assert resumed.context.trace_id == trace_id  # the answer came carrying the delivery's traceparent

    tools = {
        s.attributes["gen_ai.tool.name"]: s
        for s in traced.spans.get_finished_spans()
        if s.name.startswith("execute_tool")
    }
    assert set(tools) == {"charge_card"}
    charge = tools["charge_card"]
    assert charge.name == "execute_tool charge_card"
    assert charge.attributes["gen_ai.operation.name"] == "execute_tool"
    assert charge.attributes["gen_ai.tool.type"] == "function"
    assert charge.attributes["gen_ai.tool.call.id"] == f"{turn['waiting'][0]['run']}:1"
    assert charge.attributes["stalwart.call.status"] == "done"
    assert charge.context.trace_id == trace_id
    assert "gen_ai.tool.call.arguments" not in charge.attributes and "gen_ai.tool.call.result" not in charge.attributes

    commits = traced.named("commit memory")
    assert commits and all(c.attributes["db.system.name"] == "memory" for c in commits)

    figures = traced.figures()
    assert figures["stalwart.pauses.open"] == [({"stalwart.pause.kind": "confirm"}, 0)]
    [(attributes, _)] = figures["stalwart.answers"]
    assert attributes == {"stalwart.decision": "approve", "stalwart.channel": "http", "stalwart.pause.kind": "confirm"}
    [(attributes, _)] = figures["stalwart.approval.duration"]
    assert attributes == {"stalwart.pause.kind": "confirm", "gen_ai.tool.name": "charge_card"}

    # nothing that lets anyone answer, and no argument's value, in any span or figure
    values = traced.every_value()
    for secret in (pause["token"], SECRET, "4411"):
        assert not any(secret in value for value in values), secret
    # nor does the kept trace reach any JSON: the pause, its card, its webhook, the listing
    kept = stored.payload["traceparent"]
    assert kept.startswith(f"00-{trace_id:032x}-{turn_span.context.span_id:016x}-")
    shown = [json.dumps(pause), delivered.content.decode(), listed, json.dumps(turn)]
    assert not any(kept in text or "traceparent" in text for text in shown)


def pause_of(desk, pause_id):
    return Pause.from_record(present(desk.storage.get_pause(pause_id)))


def test_a_kept_trace_is_never_in_the_pause_json_nor_its_card(traced, ledger):
    desk = Desk.from_file(SHOP, storage="memory://")
    waiting = desk.send("t-2", "charge 40 to order 4411").waiting[0]
    pause = pause_of(desk, waiting.id)
    assert pause.traceparent is not None
    shown = [pause.to_dict(), card_of(pause, desk.verdict(pause, None), None), waiting.to_dict()]
    assert not any(pause.traceparent in json.dumps(body, default=str) for body in shown)
    assert not any("traceparent" in json.dumps(body, default=str) for body in shown)


def test_an_approver_is_an_opaque_reference_that_names_the_same_person_alike_and_only_the_store_can_make():
    store, other = open_storage("memory://"), open_storage("memory://")
    reference = approver_reference(store, "https://issuer.example", "ana")
    assert len(reference) == 16 and "ana" not in reference
    assert reference == approver_reference(store, "https://issuer.example", "ana")
    assert reference != approver_reference(store, "https://issuer.example", "bo")
    # keyed by the store's own secret: a list of candidate people tried without it matches nobody
    assert reference != approver_reference(other, "https://issuer.example", "ana")
    unkeyed = hashlib.sha256(json.dumps(["https://issuer.example", "ana"]).encode()).hexdigest()[:16]
    assert reference != unkeyed


def test_a_refused_answer_is_counted_by_its_code(traced, ledger):
    desk = Desk.from_file(SHOP, storage="memory://")
    pause = desk.send("t-3", "charge 40 to order 4411").waiting[0]
    with pytest.raises(InterruptStale):
        desk.confirm("t-3", "approve", pause, token="guessed")
    assert traced.figures()["stalwart.answers.refused"] == [({"error.type": "interrupt_stale"}, 1)]
    assert not traced.named("stalwart.approval")


def test_the_clock_ends_the_wait_as_expired(traced, ledger):
    now = [1_800_000_000.0]
    desk = Desk.from_file(SHOP, storage="memory://", clock=lambda: now[0])
    pause = desk.send("t-4", "charge 40 to order 4411").waiting[0]
    now[0] += 5 * 3600
    desk.expire(pause)
    approval = traced.one("stalwart.approval")
    assert approval.attributes["stalwart.decision"] == "expired"
    assert approval.attributes["stalwart.channel"] == "clock"
    assert traced.figures()["stalwart.pauses.expired"] == [({"stalwart.pause.kind": "confirm"}, 1)]


def test_opted_in_arguments_and_results_are_in_the_spans(captured, ledger):
    desk = Desk.from_file(SHOP, storage="memory://")
    desk.send("t-5", "charge 40 to order 4411")
    desk.confirm("t-5", "approve")
    charge = captured.one("execute_tool charge_card")
    assert json.loads(charge.attributes["gen_ai.tool.call.arguments"]) == {"amount": 40, "order_id": "4411"}
    assert "4411" in charge.attributes["gen_ai.tool.call.result"]
    approval = captured.one("stalwart.approval")
    assert json.loads(approval.attributes["gen_ai.tool.call.arguments"]) == {"amount": 40, "order_id": "4411"}


def test_a_failed_delivery_is_counted_by_channel(traced, ledger):
    down = httpx.MockTransport(lambda request: httpx.Response(503))
    webhook = Webhook("https://hooks.example/in", SECRET, transport=down, attempts=1)
    desk = Desk.from_file(SHOP, storage="memory://", on_interrupt=webhook)
    reply = desk.send("t-6", "charge 40 to order 4411")
    assert reply.not_notified
    deliver = traced.one("deliver webhook")
    assert deliver.attributes["stalwart.delivery.outcome"] == "failed"
    assert deliver.attributes["error.type"] == "WebhookError"
    assert traced.figures()["stalwart.deliveries.failed"] == [({"stalwart.channel": "webhook"}, 1)]


def test_a_callers_unsampled_traceparent_hides_nothing_of_its_turn_nor_its_wait(traced, ledger):
    """A caller the service does not trust may say "not sampled": the team still sees the turn and the wait."""
    unsampled = CALLER[:-2] + "00"
    desk = Desk.from_file(SHOP, storage="memory://")
    with serving(make_app(desk)) as base:
        pause = httpx.post(
            f"{base}/threads/t-9/messages", json={"text": "charge 40 to order 4411"}, headers={"traceparent": unsampled}
        ).json()["waiting"][0]
        body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
        assert httpx.post(f"{base}/threads/t-9/resume", json=body).status_code == 200
    assert traced.one("stalwart.turn") and traced.one("stalwart.approval")


def test_an_exceptions_message_never_reaches_a_span_only_its_code(traced, ledger):
    """An error's sentence may quote the turn, an argument or a query; a span says what kind of error it was."""
    desk = Desk.from_file(SHOP, storage="memory://")
    with pytest.raises(BadRequest):
        desk.send("t-10", "charge 12345678901234567890 to order 4411")
    turn = traced.one("stalwart.turn")
    assert turn.attributes["error.type"] == "bad_request" and turn.status.status_code.name == "ERROR"
    assert not any(span.events for span in traced.spans.get_finished_spans())
    assert not any("12345678901234567890" in value for value in traced.every_value())
