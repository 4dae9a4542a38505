"""OpenTelemetry across processes: two `stalwart serve` over one SQLite file export by OTLP/HTTP to a collector on
127.0.0.1, as they would to a real one; a turn on one and its answer on the other are one trace."""

import contextlib
import gzip
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from .conftest import SHOP
from .server import free_port, receiving, wait_until_healthy

SECRET = "whsec-two-processes-secret"


class Collector:
    """An OTLP/HTTP receiver: each span as (service instance, span), each metric's name and attributes."""

    def __init__(self):
        self.spans, self.metrics, self.raw = [], [], []
        self.lock = threading.Lock()

    def take(self, path, body):
        with self.lock:
            self.raw.append(body)
            if path == "/v1/traces":
                request = ExportTraceServiceRequest.FromString(body)
                for resource in request.resource_spans:
                    instance = _attributes(resource.resource.attributes).get("service.instance.id")
                    self.spans += [(instance, s) for scope in resource.scope_spans for s in scope.spans]
            elif path == "/v1/metrics":
                request = ExportMetricsServiceRequest.FromString(body)
                for resource in request.resource_metrics:
                    for scope in resource.scope_metrics:
                        self.metrics += [m.name for m in scope.metrics]

    def named(self, name):
        with self.lock:
            return [(instance, span) for instance, span in self.spans if span.name == name]


def _attributes(pairs):
    return {pair.key: _value(pair.value) for pair in pairs}


def _value(value):
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


@contextlib.contextmanager
def collecting():
    collector = Collector()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            collector.take(self.path, body)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield collector, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def serve(instance, environ, storage):
    port = free_port()
    command = [sys.executable, "-m", "stalwart_agents", "serve", str(SHOP), "--port", str(port), "--storage", storage]
    extra = {"OTEL_RESOURCE_ATTRIBUTES": f"service.instance.id={instance}"}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environ | extra
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base)
    except AssertionError:
        process.kill()
        raise AssertionError(process.communicate()[0]) from None
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


def eventually(found, seconds=15.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found():
            return
        time.sleep(0.05)
    raise AssertionError("the collector never received it")


@pytest.fixture
def two_services(tmp_path, ledger):
    with collecting() as (collector, endpoint), receiving(SECRET) as hook:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")} | {
            "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
            "OTEL_SERVICE_NAME": "shop",
            "OTEL_BSP_SCHEDULE_DELAY": "50",
            "OTEL_METRIC_EXPORT_INTERVAL": "200",
            "STALWART_WEBHOOK_URL": hook.url,
            "STALWART_WEBHOOK_SECRET": SECRET,
        }
        storage = f"sqlite:///{tmp_path / 'runs.db'}"
        with serve("a", environ, storage) as a, serve("b", environ, storage) as b:
            yield collector, hook, a, b


def test_a_turn_on_one_process_and_its_answer_on_another_are_one_trace(two_services):
    collector, hook, a, b = two_services
    turn = httpx.post(f"{a}/threads/t-9/messages", json={"text": "charge 40 to order 4411"}, timeout=10).json()
    pause = turn["waiting"][0]
    delivered = hook.tried[0]["headers"]["traceparent"]
    body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
    answered = httpx.post(f"{b}/threads/t-9/resume", json=body, headers={"traceparent": delivered}, timeout=10)
    assert answered.status_code == 200, answered.text

    eventually(lambda: collector.named("stalwart.approval") and collector.named("execute_tool charge_card"))
    eventually(lambda: {"stalwart.answers", "stalwart.approval.duration"} <= set(collector.metrics))
    [(where, turn_span)] = collector.named("stalwart.turn")
    [(answered_on, approval)] = collector.named("stalwart.approval")
    [(delivered_on, deliver)] = collector.named("deliver webhook")
    [(charged_on, charge)] = collector.named("execute_tool charge_card")
    [(resumed_on, resumed)] = collector.named("POST /threads/{thread}/resume")
    assert (where, delivered_on, answered_on, charged_on, resumed_on) == ("a", "a", "b", "b", "b")
    trace = turn_span.trace_id
    assert {span.trace_id for span in (approval, deliver, charge, resumed)} == {trace}
    assert approval.parent_span_id == turn_span.span_id  # the wait hangs under the turn it began in
    assert delivered == f"00-{trace.hex()}-{deliver.span_id.hex()}-{delivered[-2:]}"

    attributes = _attributes(approval.attributes)
    assert attributes["stalwart.pause.kind"] == "confirm"
    assert attributes["gen_ai.tool.name"] == "charge_card"
    assert attributes["stalwart.decision"] == "approve"
    assert attributes["stalwart.channel"] == "http"
    assert approval.end_time_unix_nano - approval.start_time_unix_nano > 0
    assert _attributes(resumed.attributes)["http.route"] == "/threads/{thread}/resume"
    assert _attributes(resumed.attributes)["http.response.status_code"] == 200

    # what arrived, whole and as bytes: no token, secret or argument value anywhere in it
    with collector.lock:
        everything = b"".join(collector.raw)
    for secret in (pause["token"], SECRET, "4411", "order_id"):
        assert secret.encode() not in everything, secret
