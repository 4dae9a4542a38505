"""Answers within Lambda's 6 MB: a turn whose results pass the response budget answers within it, its largest results
summarised and each read whole from its own route; the stream sends pages within the budget and reads on from its
cursor.  Over the real server (uvicorn, SQLite) and through the Lambda functions with the template's policies
(DynamoDB on moto's server)."""

import json

import httpx
import jwt
import pytest

from stalwart_agents import Desk
from stalwart_agents.aws.handlers import FunctionEnvironment
from stalwart_agents.http.auth import SharedSecret
from stalwart_agents.http.budget import MIN_BUDGET, RESPONSE_BUDGET, carried
from stalwart_agents.serve import make_app

from .server import serving
from .test_http import sse
from .test_lambda import ALICE, BOB, Deployed, secrets, stack, storage_url, template  # noqa: F401  (its fixtures)

CALLS, BLOB = 64, 100_000
TURN = {"text": " and ".join(f"fetch {n}" for n in range(CALLS))}
LAMBDA_LIMIT = 6 * 1024 * 1024
"""What Lambda answers at most, as its runtime serialises the handler's response."""
TOOLS = """
import json, os

from stalwart_agents import tool


@tool(says=["fetch {n}"])
def fetch(n: str) -> dict:
    with open(os.environ["BIG_LEDGER"], "a") as ledger:
        ledger.write(n + "\\n")
    return {"n": n, "blob": "x" * 100_000}
"""
STORE = """

@tool(write=True, says=["store {n}"])
def store(n: str) -> dict:
    return {"stored": n}
"""
"""A write, which waits for a person: the answer's reply shows the run's every step again."""
SECRET, TEAM, AUDIENCE = "a-team-secret-of-at-least-32-bytes!", "https://team.example", "stalwart"


@pytest.fixture
def big(tmp_path, monkeypatch):
    """An agent whose one tool returns 100 KB, writing down each call it runs: (its agent.yaml, the calls run)."""
    (tmp_path / "tools.py").write_text(TOOLS + STORE)
    (tmp_path / "agent.yaml").write_text("agents:\n  - name: big\n    tools: tools.py\n")
    ran = tmp_path / "ran.txt"
    ran.touch()
    monkeypatch.setenv("BIG_LEDGER", str(ran))
    return tmp_path / "agent.yaml", lambda: ran.read_text().split()


def whole(n):
    return {"n": n, "blob": "x" * BLOB}


def token(sub):
    claims = {"sub": sub, "iss": TEAM, "aud": AUDIENCE, "exp": 2**31}
    return {"Authorization": "Bearer " + jwt.encode(claims, SECRET, algorithm="HS256")}


def assert_summarised_and_read_whole(steps, read):
    """Every call done, the largest left out with a marker, and each of those read whole where the marker says."""
    assert [(s["status"], s["arguments"][0]["value"]) for s in steps] == [("done", str(n)) for n in range(CALLS)]
    truncated = [s for s in steps if s.get("truncated")]
    assert truncated, "nothing was summarised"
    for step in truncated:
        n = step["arguments"][0]["value"]
        assert step["result"] is None and step["truncated"]["bytes"] == len(json.dumps(whole(n)).replace(" ", ""))
        status, shown = read(step["truncated"]["read"])
        assert status == 200 and shown["result"] == whole(n) and shown["tool"] == "fetch", shown
    assert all(s["result"] == whole(s["arguments"][0]["value"]) for s in steps if not s.get("truncated"))


# ------------------------------------------------------------------ the real server


def test_a_turn_past_the_budget_answers_within_it_and_each_result_reads_whole(big, tmp_path):
    config, ran = big
    desk = Desk.from_file(config, f"sqlite:///{tmp_path / 'runs.db'}")
    auth = SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE)
    with serving(make_app(desk, auth=auth)) as base:
        answer = httpx.post(f"{base}/threads/u-1/messages", json=TURN, headers=token("alice"), timeout=120)
        assert answer.status_code == 200, answer.text[:300]
        assert carried(answer.content) <= RESPONSE_BUDGET

        def read(path):
            got = httpx.get(base + path, headers=token("alice"), timeout=10)
            return got.status_code, got.json()

        assert_summarised_and_read_whole(answer.json()["steps"], read)
        first = next(s for s in answer.json()["steps"] if s.get("truncated"))["truncated"]["read"]
        # another person, a run of no thread, a key of no call: each as a thread that does not exist
        for path, who in ((first, "bob"), (first.replace("/results/r_", "/results/r_0"), "alice")):
            refused = httpx.get(base + path, headers=token(who), timeout=10)
            assert (refused.status_code, refused.json()["error"]) == (404, "not_found")
        missing = httpx.get(base + first.rsplit("/", 1)[0] + "/99", headers=token("alice"), timeout=10)
        assert (missing.status_code, missing.json()["error"]) == (404, "not_found")
        bad = httpx.get(base + first.rsplit("/", 1)[0] + "/x", headers=token("alice"), timeout=10)
        assert bad.status_code == 400
    assert ran() == [str(n) for n in range(CALLS)]  # each call ran once
    run = first.split("/")[4]  # /threads/u-1/results/<run>/<key>: alice's own u-1, stored under an id scoped to her
    assert [e.result for e in desk.storage.journal(run)] == [whole(str(n)) for n in range(CALLS)]


@pytest.mark.parametrize("route", ["resume", "answers"])
def test_an_answer_past_the_budget_answers_within_it_and_each_result_reads_whole(big, tmp_path, route):
    config, ran = big
    desk = Desk.from_file(config, f"sqlite:///{tmp_path / 'runs.db'}")
    auth = SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE)
    with serving(make_app(desk, auth=auth)) as base:
        turn = {"text": TURN["text"] + " and store 7"}
        paused = httpx.post(f"{base}/threads/u-1/messages", json=turn, headers=token("alice"), timeout=120).json()
        pause = paused["waiting"][0]
        answer = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
        if route == "resume":
            answered = httpx.post(f"{base}/threads/u-1/resume", json=answer, headers=token("alice"), timeout=120)
        else:
            answered = httpx.post(f"{base}/interrupts/answers", json=[answer], headers=token("alice"), timeout=120)
        assert answered.status_code == 200, answered.text[:300]
        assert carried(answered.content) <= RESPONSE_BUDGET
        steps = answered.json()["steps"] if route == "resume" else answered.json()["answers"][0]["steps"]
        assert steps[-1]["tool"] == "store" and steps[-1]["result"] == {"stored": "7"}

        def read(path):
            got = httpx.get(base + path, headers=token("alice"), timeout=10)
            return got.status_code, got.json()

        assert_summarised_and_read_whole(steps[:-1], read)
    assert ran() == [str(n) for n in range(CALLS)]


def stream_pages(get, after=0):
    """Each response of a stream read in ``once`` mode from ``after`` until it brings nothing new: its events."""
    pages: list[list[tuple[int, str, dict]]] = []
    while True:
        body = get(after)
        assert carried(body.encode()) <= RESPONSE_BUDGET or not pages
        events = sse(body)
        if not events:
            return pages
        pages.append(events)
        after = events[-1][0]
        assert len(pages) <= 2 * CALLS, "the cursor does not move on"


@pytest.mark.parametrize("budget", [RESPONSE_BUDGET, MIN_BUDGET])
def test_a_stream_past_the_budget_is_read_whole_across_reconnects(big, tmp_path, budget):
    config, _ = big
    desk = Desk.from_file(config, f"sqlite:///{tmp_path / 'runs.db'}")
    desk.send("u-1", TURN["text"])
    everything = desk.events("u-1", limit=1000)
    with serving(make_app(desk, stream_mode="once", response_budget=budget)) as base:

        def get(after):
            answer = httpx.get(f"{base}/threads/u-1/stream", headers={"Last-Event-ID": str(after)}, timeout=30)
            assert answer.status_code == 200
            assert carried(answer.content) <= budget
            return answer.text

        pages = stream_pages(get)
        received = [event for page in pages for event in page]
        assert [event_id for event_id, _, _ in received] == [event_id for event_id, _ in everything]
        assert len(pages) > 1
        for (_, _, data), (_, body) in zip(received, everything, strict=True):
            if body["type"] != "step":
                continue
            if budget == RESPONSE_BUDGET:  # every event fits a page alone: sent whole
                assert data == body
            else:  # none does: each sent without its values, its result read whole where the marker says
                assert "result" not in data and data["truncated"]["bytes"] > budget
                assert httpx.get(base + data["truncated"]["read"], timeout=10).json()["result"] == body["result"]


# ------------------------------------------------------------------ the Lambda functions, with the template's policies


def test_the_functions_answer_a_turn_past_the_budget_within_lambdas_limit(request, monkeypatch, big):
    config, ran = big
    fixture = request.getfixturevalue
    deployed = Deployed(fixture("template"), fixture("stack"), fixture("storage_url"), monkeypatch, config=config)
    status, headers, text = deployed.call("POST", "/threads/u-1/messages", TURN, claims=ALICE)
    assert status == 200, text[:300]
    response = {"statusCode": status, "headers": headers, "body": text}
    assert len(json.dumps(response)) <= LAMBDA_LIMIT

    def read(path):
        status, _, body = deployed.call("GET", path, claims=ALICE)
        return status, json.loads(body)

    assert_summarised_and_read_whole(json.loads(text)["steps"], read)
    path = next(s for s in json.loads(text)["steps"] if s.get("truncated"))["truncated"]["read"]
    assert deployed.call("GET", path, claims=BOB)[0] == 404
    assert ran() == [str(n) for n in range(CALLS)]

    ticket = headers["stalwart-stream-ticket"]

    def get(after):
        status, _, body = deployed.call(
            "GET", "/threads/u-1/stream", query={"ticket": ticket, "last_event_id": str(after)}
        )
        assert status == 200 and len(json.dumps({"body": body})) <= LAMBDA_LIMIT
        return body

    pages = stream_pages(get)
    received = [event for page in pages for event in page]
    assert len(pages) > 1 and sum(kind == "step" for _, kind, _ in received) == CALLS
    assert all(data["result"] == whole(str(n)) for n, (_, _, data) in enumerate(e for e in received if e[1] == "step"))
    assert deployed.refused_by_iam() == []


def test_a_function_takes_a_lower_budget_from_its_environment_and_refuses_one_lambda_would_not():
    base = {"STALWART_CONFIG": "agent.yaml", "STALWART_STORAGE": "memory://"}
    assert FunctionEnvironment.from_environ(base).response_budget == RESPONSE_BUDGET
    assert FunctionEnvironment.from_environ(base | {"STALWART_RESPONSE_BUDGET": "65536"}).response_budget == 65536
    for wrong in ("6291456", "1024", "5MB", "-1"):
        with pytest.raises(RuntimeError, match=f"STALWART_RESPONSE_BUDGET is '{wrong}'; it takes bytes from 16384"):
            FunctionEnvironment.from_environ(base | {"STALWART_RESPONSE_BUDGET": wrong})
