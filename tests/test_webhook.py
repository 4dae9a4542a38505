import base64
import contextlib
import hashlib
import hmac
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
import standardwebhooks
import stripe
from hypothesis import given, settings
from hypothesis import strategies as st

from stalwart_agents import Pause, StalwartError
from stalwart_agents.approvals.webhook import BadSignature, Webhook, WebhookError, sign, verify_signature

SECRET = "whsec_s3cr3t-value"
NOW = 1_800_000_000
BODY = '{"delivery":"d_1","thread":"u-17","question":"Café?"}'.encode()


def make_pause(id="p_1"):
    return Pause(
        id=id,
        kind="confirm",
        thread="u-17",
        run="r_1",
        step=2,
        tool="charge_card",
        question="Run charge_card?",
        arguments=[{"name": "amount", "value": 40, "origin": "typed"}],
        reasons=["write"],
        irreversible=False,
        answers=["approve", "skip", "cancel_all"],
        token="tok",
        created_at="2026-11-30T00:00:00.000Z",
    )


def by_hand(secret, body, t, scheme="v1"):
    """The Stripe format written out from its definition, not with the code under test."""
    mac = hmac.new(secret.encode(), str(t).encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"t={t},{scheme}={mac}"


class Clock:
    """Moves on a minute each time the sender reads it, so every attempt is signed at another time."""

    def __init__(self, start=NOW):
        self.now = start

    def __call__(self):
        read, self.now = self.now, self.now + 60
        return read


class Receiver:
    """A real HTTP endpoint on 127.0.0.1 that verifies each delivery the way a team's receiver would."""

    def __init__(self):
        self.status = 200
        self.delay = 0.0
        self.clock = time.time
        self.requests: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                header = self.headers.get("Stalwart-Signature")
                verified: int | BadSignature
                try:
                    verified = verify_signature(SECRET, header, body, now=receiver.clock())
                except BadSignature as exc:
                    verified = exc
                receiver.requests.append(
                    {
                        "delivery": self.headers.get("Stalwart-Delivery"),
                        "signature": header,
                        "verified": verified,
                        "headers": dict(self.headers),
                        "body": json.loads(body),
                        "raw": body,
                    }
                )
                time.sleep(receiver.delay)
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 64

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/stalwart"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    @property
    def verified(self):
        return [r["verified"] for r in self.requests]


@pytest.fixture
def receiver():
    receiver = Receiver()
    receiver.thread.start()
    yield receiver
    receiver.server.shutdown()
    receiver.server.server_close()


@pytest.fixture
def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- the signature, as a receiver relies on it ---------------------------------------------------


def test_a_signature_verifies_with_stripes_own_library():
    header = sign(SECRET, BODY)
    assert stripe.WebhookSignature.verify_header(BODY.decode(), header, SECRET, tolerance=300) is True
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.WebhookSignature.verify_header(BODY.decode() + " ", header, SECRET, tolerance=300)


def test_headers_made_outside_verify():
    t = int(time.time())
    assert verify_signature(SECRET, by_hand(SECRET, BODY, t), BODY) == t
    stripes = stripe.WebhookSignature.generate_signature_header(BODY.decode(), SECRET, timestamp=t)
    assert verify_signature(SECRET, stripes, BODY) == t
    assert sign(SECRET, BODY, timestamp=NOW) == by_hand(SECRET, BODY, NOW)


def test_a_signature_holds_within_tolerance_both_ways():
    header = sign(SECRET, BODY, timestamp=NOW)
    assert verify_signature(SECRET, header, BODY, now=NOW + 300) == NOW
    assert verify_signature(SECRET, header, BODY, now=NOW - 300) == NOW


@pytest.mark.parametrize(
    ("header", "body", "secret", "now", "reason"),
    [
        (sign(SECRET, BODY, timestamp=NOW), BODY + b" ", SECRET, NOW, "no v1 signature matches"),
        (sign(SECRET, BODY, timestamp=NOW), BODY, "whsec_another", NOW, "no v1 signature matches"),
        (sign(SECRET, BODY, timestamp=NOW), BODY, SECRET, NOW + 301, "timestamp too old"),
        (sign(SECRET, BODY, timestamp=NOW), BODY, SECRET, NOW - 301, "timestamp in the future"),
        (by_hand(SECRET, BODY, NOW + 1).replace(f"t={NOW + 1}", f"t={NOW}"), BODY, SECRET, NOW, "no v1 signature"),
        (None, BODY, SECRET, NOW, "missing Stalwart-Signature header"),
    ],
    ids=["tampered body", "other secret", "expired", "future-dated", "timestamp swapped", "missing"],
)
def test_rejected_deliveries_say_why(header, body, secret, now, reason):
    with pytest.raises(BadSignature, match=reason) as raised:
        verify_signature(secret, header, body, now=now)
    assert raised.value.code == "bad_signature"
    assert isinstance(raised.value, StalwartError)
    expected = sign(SECRET, body, timestamp=NOW).split("v1=")[1]
    assert SECRET not in raised.value.message and expected not in raised.value.message


GOOD = by_hand(SECRET, BODY, NOW).split("v1=")[1]


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ("", "missing"),
        ("t=", "not a whole number"),
        (f"v1={GOOD}", "no timestamp"),
        (f"t=abc,v1={GOOD}", "not a whole number"),
        ("t=1,v1=", "not 64 lowercase hex"),
        (f"t={NOW}", "no v1 signature"),
        (f"t={NOW},v0={GOOD}", "no v1 signature"),
        (f"t={NOW},t={NOW},v1={GOOD}", "more than one timestamp"),
        (f"t=-{NOW},v1={GOOD}", "not a whole number"),
        (f"t={NOW}.5,v1={GOOD}", "not a whole number"),
        (f"t=١٢٣,v1={GOOD}", "not a whole number"),
        (f"t={'9' * 40},v1={GOOD}", "not a whole number"),
        (f"t={NOW},v1={GOOD.upper()}", "not 64 lowercase hex"),
        (f"t={NOW},v1=é{GOOD[1:]}", "not 64 lowercase hex"),
        (f"t={NOW},v1={GOOD},", "not key=value"),
        ("garbage", "not key=value"),
        ("\ud800\x00☃", "not key=value"),
        (f"t={NOW}," + "v1=" + "a" * 64 + "," * 10_000, "longer than 4096"),
    ],
)
def test_malformed_headers_are_bad_signatures(header, reason):
    with pytest.raises(BadSignature, match=reason):
        verify_signature(SECRET, header, BODY, now=NOW)


def test_any_of_several_signatures_may_match():
    stale = by_hand("whsec_old", BODY, NOW).split("v1=")[1]
    assert verify_signature(SECRET, f"t={NOW},v1={stale},v1={GOOD}", BODY, now=NOW) == NOW
    assert verify_signature(SECRET, f"t={NOW}, v0=zz, v1={GOOD}", BODY, now=NOW) == NOW


def test_any_of_several_secrets_may_match():
    assert verify_signature(["whsec_new", SECRET], by_hand(SECRET, BODY, NOW), BODY, now=NOW) == NOW
    assert verify_signature(("whsec_new", SECRET), by_hand("whsec_new", BODY, NOW), BODY, now=NOW) == NOW
    with pytest.raises(BadSignature):
        verify_signature(["whsec_new", "whsec_old"], by_hand(SECRET, BODY, NOW), BODY, now=NOW)


ANY_TEXT = st.text(st.characters(exclude_categories=()))
ELEMENT = st.tuples(
    st.sampled_from(["t", "v1", "v0", "", " t", "T"]),
    st.sampled_from(["=", "", "=="]),
    st.one_of(st.text(max_size=70), st.integers(-1, 10**15).map(str), st.just(GOOD)),
)


@settings(max_examples=300, deadline=None, database=None)
@given(
    header=st.one_of(st.none(), ANY_TEXT, st.lists(ELEMENT).map(lambda e: ",".join("".join(x) for x in e))),
    body=st.binary(max_size=200),
    now=st.floats(allow_nan=False, allow_infinity=False),
)
def test_any_header_is_either_verified_or_a_bad_signature(header, body, now):
    with contextlib.suppress(BadSignature):
        assert isinstance(verify_signature(["k1", SECRET], header, body, now=now), int)


# --- delivery, against a real receiver ---------------------------------------------------------


def test_a_pause_is_delivered_signed_and_verified(receiver):
    with Webhook(receiver.url, SECRET) as hook:
        hook("u-17", make_pause())
    [request] = receiver.requests
    assert isinstance(request["verified"], int)
    delivery, _ = hook.payload("u-17", make_pause())
    assert request["delivery"] == delivery == request["body"]["delivery"]
    assert request["body"] == {
        "delivery": delivery,
        "type": "interrupt",
        "thread": "u-17",
        "interrupt": make_pause().to_dict(),
    }
    assert request["body"]["interrupt"]["token"] == "tok"
    assert request["headers"]["Content-Type"] == "application/json"
    assert request["headers"]["User-Agent"] == "stalwart-agents"


@pytest.mark.parametrize("status", [200, 202, 204])
def test_any_2xx_is_delivered(receiver, status):
    receiver.status = status
    with Webhook(receiver.url, SECRET, attempts=3) as hook:
        hook("u-17", make_pause())
    assert len(receiver.requests) == 1


def test_a_failing_receiver_is_tried_again_each_time_signed_afresh(receiver):
    receiver.status = 500
    clock = Clock()
    receiver.clock = lambda: clock.now
    hook = Webhook(receiver.url + "?token=hidden", SECRET, attempts=3, clock=clock)
    with pytest.raises(WebhookError) as raised:
        hook("u-17", make_pause())
    hook.close()
    assert len(receiver.requests) == 3
    assert receiver.verified == [NOW, NOW + 60, NOW + 120]
    assert len({r["signature"] for r in receiver.requests}) == 3
    assert len({r["delivery"] for r in receiver.requests}) == 1
    error = raised.value
    assert error.code == "not_notified" and error.causes == ["status 500"] * 3
    origin = receiver.url.removesuffix("/hooks/stalwart")
    assert (
        f"webhook {origin} not notified after 3 attempts: status 500" in error.message and "/hooks" not in error.message
    )
    for shown in (error.message, repr(hook)):
        assert SECRET not in shown and "hidden" not in shown and "?" not in shown


def test_a_redirect_is_not_followed(receiver):
    receiver.status = 302
    with pytest.raises(WebhookError, match="status 302"), Webhook(receiver.url, SECRET, attempts=1) as hook:
        hook("u-17", make_pause())


def test_a_slow_receiver_times_out(receiver):
    receiver.delay = 0.5
    with pytest.raises(WebhookError, match="timed out"), Webhook(receiver.url, SECRET, timeout=0.1, attempts=1) as hook:
        hook("u-17", make_pause())


def test_a_dead_url_fails_quickly_without_showing_secrets(closed_port):
    hook = Webhook(f"http://user:pw@127.0.0.1:{closed_port}/hook/capability-path?token=hidden", SECRET)
    started = time.monotonic()
    with pytest.raises(WebhookError) as raised:
        hook("u-17", make_pause())
    assert time.monotonic() - started < 2
    message = raised.value.message
    assert message == (
        f"webhook http://127.0.0.1:{closed_port} not notified after 2 attempts: connection refused; connection refused"
    )
    for shown in (message, repr(hook)):
        assert SECRET not in shown and "hidden" not in shown and "pw" not in shown and "capability-path" not in shown


def test_a_transport_error_then_success_is_delivered():
    calls = []

    def handle(request):
        calls.append(request.headers["Stalwart-Signature"])
        if len(calls) == 1:
            raise httpx.ConnectError("boom", request=request)
        return httpx.Response(200)

    Webhook("https://hooks.example/x", SECRET, transport=httpx.MockTransport(handle))("u-17", make_pause())
    assert len(calls) == 2


def test_concurrent_pauses_share_one_client(receiver):
    hook = Webhook(receiver.url, SECRET)
    threads = [threading.Thread(target=hook, args=("u-17", make_pause(f"p_{i}"))) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    hook.close()
    assert sorted(r["body"]["interrupt"]["id"] for r in receiver.requests) == sorted(f"p_{i}" for i in range(8))
    assert all(isinstance(v, int) for v in receiver.verified)


def test_the_delivery_id_is_stable_for_a_pause():
    hook = Webhook("https://hooks.example/x", SECRET)
    first, body = hook.payload("u-17", make_pause())
    assert first.startswith("d_") and len(first) == 34
    assert hook.payload("u-17", make_pause()) == (first, body)
    assert Webhook("https://hooks.example/x", "whsec_other").payload("u-17", make_pause())[0] == first
    assert hook.payload("u-17", make_pause("p_2"))[0] != first
    assert Webhook("https://hooks.example/y", SECRET).payload("u-17", make_pause())[0] != first


@pytest.mark.parametrize(
    "url",
    ["ftp://hooks.example/x", "hooks.example/x", "http:///x", "http://hooks.example:99999/x?token=hidden", ""],
)
def test_a_bad_url_is_refused(url):
    with pytest.raises(ValueError) as raised:
        Webhook(url, SECRET)
    assert SECRET not in str(raised.value) and "hidden" not in str(raised.value)


def test_an_empty_secret_is_refused():
    with pytest.raises(ValueError, match="secret"):
        Webhook("https://hooks.example/x", "")


STANDARD = "whsec_" + base64.b64encode(b"a key of twenty-four byte").decode()


@pytest.mark.parametrize(
    ("secret", "given"), [(STANDARD, STANDARD), (SECRET, "whsec_" + base64.b64encode(SECRET.encode()).decode())]
)
def test_each_delivery_also_verifies_with_the_standard_webhooks_library(receiver, secret, given):
    """A whsec_<base64> secret is given to the library as it is; any other as whsec_ and its base64."""
    with Webhook(receiver.url, secret, attempts=1) as hook:
        hook("u-17", make_pause())
    [request] = receiver.requests
    headers = {name.lower(): value for name, value in request["headers"].items()}
    assert headers["webhook-id"] == request["delivery"] and headers["webhook-timestamp"].isdigit()
    assert standardwebhooks.Webhook(given).verify(request["raw"], headers) == request["body"]
    for tampered in (request["raw"] + b" ", request["raw"].replace(b"u-17", b"u-18")):
        with pytest.raises(standardwebhooks.webhooks.WebhookVerificationError):
            standardwebhooks.Webhook(given).verify(tampered, headers)
    other = headers | {"webhook-id": "d_another"}
    with pytest.raises(standardwebhooks.webhooks.WebhookVerificationError):
        standardwebhooks.Webhook(given).verify(request["raw"], other)
