"""What `stalwart serve` logs, read from a real process: failures at the default level, a line per request and per
pause at info, JSON lines on request, and never a secret, a token, a ticket or a link in any line."""

import json
import textwrap
import time

import httpx
import jwt
import pytest

from .conftest import SHOP
from .server import receiving, stalwart_serve

JWT_SECRET = "a-logs-test-secret-of-at-least-32-bytes"
HOOK_SECRET = "whsec-logs-test-secret"
OPERATOR = "operator-token-for-the-logs-test"
TEAM, AUDIENCE = "https://team.example", "stalwart-shop"
PUBLIC = "http://localhost:9/approvals"
BAD_BEARER = "not-a-real-token-that-must-not-be-logged"
BAD_TICKET = "a-ticket-that-must-not-be-logged"


def logged(process) -> list[str]:
    """Everything the stopped process wrote, but the two lines it prints to say where it serves."""
    return [line for line in process.stdout.read().splitlines() if not line.startswith("stalwart serve: ")]


def bearer(subject: str) -> dict[str, str]:
    claims = {"sub": subject, "iss": TEAM, "aud": AUDIENCE, "exp": int(time.time()) + 300}
    return {"Authorization": f"Bearer {jwt.encode(claims, JWT_SECRET, algorithm='HS256')}"}


def test_by_default_a_failing_tool_is_logged_with_its_error_and_requests_are_not(tmp_path):
    with stalwart_serve(SHOP, "--storage", f"sqlite:///{tmp_path / 'runs.db'}") as (base, process):
        failed = httpx.post(f"{base}/threads/u-1/messages", json={"text": "look up order 4499"})
        httpx.post(f"{base}/threads/u-2/messages", json={"text": "look up order 4411"})
    assert failed.json()["steps"][0]["status"] == "failed"
    [line] = logged(process)
    assert (
        line.split(" ", 1)[1]
        == 'WARNING tool failed tool=look_up_order thread=u-1 step=1 error="LookupError: there is no order 4499"'
    )


def test_at_info_each_request_is_one_line_naming_its_route_thread_status_and_time(tmp_path):
    storage = ("--storage", f"sqlite:///{tmp_path / 'runs.db'}")
    with stalwart_serve(SHOP, *storage, "--log-level", "info") as (base, process):
        httpx.post(f"{base}/threads/u-17/messages", json={"text": "charge 40 to order 4411"})
        httpx.post(f"{base}/threads/forged%0AERROR%20injected/messages", json={"text": "hi"})
        httpx.get(f"{base}/no/such/route")
    said = [line.split(" ", 2)[2] for line in logged(process) if "route=/healthz" not in line]
    said = [line for line in said if not line.startswith("swept:")]
    assert said[0].startswith("pause opened kind=confirm tool=charge_card thread=u-17 pause=p_")
    assert said[1].startswith("request method=POST route=/threads/{thread}/messages thread=u-17 status=200 ms=")
    assert said[2].startswith(
        'request method=POST route=/threads/{thread}/messages thread="forged\\nERROR injected" status=400'
    )
    assert said[3].startswith("request method=GET route=- status=404 ms=")
    assert len(said) == 4


def test_json_lines_hold_no_secret_token_ticket_or_link(tmp_path, monkeypatch):
    """Everything that could leak is used at debug level: bearer tokens good and bad, the operator token, a stream
    ticket in the query, a pause's token, signed links opened and answered, and a webhook that fails."""
    for name, value in {
        "STALWART_JWT_SECRET": JWT_SECRET,
        "QLS_OPERATOR_TOKEN": OPERATOR,
        "STALWART_WEBHOOK_SECRET": HOOK_SECRET,
        "STALWART_PUBLIC_URL": PUBLIC,
    }.items():
        monkeypatch.setenv(name, value)
    alice = bearer("alice")
    flags = (
        "--auth",
        "hs256",
        "--jwt-issuer",
        TEAM,
        "--jwt-audience",
        AUDIENCE,
        "--log-level",
        "debug",
        "--log-format",
        "json",
    )
    with receiving(HOOK_SECRET) as receiver:
        receiver.status = 500
        monkeypatch.setenv("STALWART_WEBHOOK_URL", receiver.url)
        with stalwart_serve(SHOP, "--storage", f"sqlite:///{tmp_path / 'runs.db'}", *flags) as (base, process):
            httpx.post(f"{base}/threads/t-1/messages", json={"text": "look up order 4499"}, headers=alice)
            turn = httpx.post(f"{base}/threads/t-2/messages", json={"text": "charge 40 to order 4411"}, headers=alice)
            [pause] = turn.json()["waiting"]
            link = receiver.tried[0]["body"]["links"]["approve"].replace(PUBLIC, base)
            opened, answered = httpx.get(link), httpx.post(link, headers=alice)
            httpx.get(f"{base}/threads/t-2/interrupts", headers={"Authorization": f"Bearer {BAD_BEARER}"})
            httpx.get(f"{base}/threads/t-2/stream", params={"ticket": BAD_TICKET})
            httpx.post(f"{base}/threads/t-2/rollback", headers={**alice, "Stalwart-Operator-Token": OPERATOR})
    assert (opened.status_code, answered.status_code) == (200, 200), answered.text
    lines = logged(process)
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    text = "\n".join(lines)
    capability = link.rsplit("/", 1)[1]
    for secret in (
        JWT_SECRET,
        alice["Authorization"][7:],
        BAD_BEARER,
        BAD_TICKET,
        OPERATOR,
        HOOK_SECRET,
        capability,
        pause["token"],
        turn.headers["Stalwart-Session"],
        turn.headers["Stalwart-Stream-Ticket"],
    ):
        assert secret not in text
    said = {(r["message"], r.get("route"), r.get("status")) for r in records}
    assert {
        ("request", "/links/{link}", 200),
        ("request", "/threads/{thread}/interrupts", 401),
        ("request", "/threads/{thread}/stream", 401),
        ("request", "/threads/{thread}/rollback", 200),
    } <= said
    [failure] = [r for r in records if r["message"] == "tool failed"]
    assert (failure["level"], failure["tool"], failure["thread"].partition(":")[2], failure["error"]) == (
        "warning",
        "look_up_order",
        "t-1",  # Alice's own t-1, as stored: scoped to her
        "LookupError: there is no order 4499",
    )
    delivery = next(r for r in records if r["message"] == "delivery failed")
    assert (delivery["level"], delivery["thread"], delivery["pause"]) == ("warning", pause["thread"], pause["id"])
    assert urlsplit_target(receiver.url) in delivery["error"] and "/hook" not in delivery["error"]


def urlsplit_target(url: str) -> str:
    """``scheme://host:port``: all of a receiver's address an error may name."""
    return url.rsplit("/", 1)[0]


@pytest.mark.parametrize(("model", "warned"), [("", True), ("    model: {python: 'model:propose'}\n", False)])
def test_at_start_an_agent_that_offers_turns_to_no_model_is_a_warning(tmp_path, model, warned):
    config = tmp_path / "agent.yaml"
    config.write_text(
        textwrap.dedent(f"""\
            storage: memory://
            agents:
              - name: shop
                tools: {SHOP.parent / "tools.py"}
                on_unread: ask
        """)
        + model
    )
    with stalwart_serve(config) as (_, process):
        pass
    expected = (
        "WARNING delegate pauses will offer the assistant, but none is set: give the agent a model: section agent=shop"
    )
    assert [line.split(" ", 1)[1] for line in logged(process)] == ([expected] if warned else [])
