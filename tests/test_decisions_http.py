"""The decision record over HTTP, on a real uvicorn: a thread's decisions for its owner or an operator, and the
whole record's export for an operator alone, a page at a time."""

from __future__ import annotations

import base64
import csv
import io
import json
import time

import httpx
import jwt
import pytest

from stalwart_agents.http.auth import SharedSecret
from stalwart_agents.serve import make_app
from stalwart_agents.storage import text

from .server import serving

pytestmark = pytest.mark.sqlite

SECRET = "a-team-secret-of-at-least-32-bytes!"
TEAM = "https://team.example"
AUDIENCE = "stalwart-shop"
OPERATOR = "operator-token-for-the-record"
CHARGE = {"text": "charge 40 to order 4411"}


def bearer(subject: str, **claims: object) -> dict[str, str]:
    payload = {"sub": subject, "iss": TEAM, "aud": AUDIENCE, "exp": int(time.time()) + 300, **claims}
    return {"Authorization": f"Bearer {jwt.encode(payload, SECRET, algorithm='HS256')}"}


@pytest.fixture
def base(desk):
    auth = SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE)
    with serving(make_app(desk, auth=auth, operator_token=OPERATOR)) as url:
        yield url


def decide(base: str, thread: str, who: str, decision: str = "approve") -> dict:
    pause = httpx.post(f"{base}/threads/{thread}/messages", json=CHARGE, headers=bearer(who), timeout=10).json()
    waiting = pause["waiting"][0]
    body = {"interrupt_id": waiting["id"], "decision": decision, "token": waiting["token"]}
    answer = httpx.post(f"{base}/threads/{thread}/resume", json=body, headers=bearer(who, name="Ana Ruiz"), timeout=10)
    assert answer.status_code == 200, answer.text
    return waiting


def test_an_owner_reads_her_threads_decisions_as_the_record_keeps_them(base, desk):
    pause = decide(base, "u-17", "ana")
    read = httpx.get(f"{base}/threads/u-17/decisions", headers=bearer("ana"), timeout=10)
    assert read.status_code == 200, read.text
    body = read.json()
    assert (body["thread"], body["intact"]) == ("u-17", True)
    [entry] = body["decisions"]
    assert (entry["decision"], entry["outcome"], entry["tool"], entry["pause"]) == (
        "approve",
        "taken",
        "charge_card",
        pause["id"],
    )
    assert entry["by"] == {"issuer": TEAM, "subject": "ana", "name": "Ana Ruiz", "verified": "token"}
    assert entry["mine"] is True and entry["channel"] == "http" and entry["seq"] == 1
    assert entry["shown"]["arguments"] == [{k: a[k] for k in ("name", "value", "origin")} for a in pause["arguments"]]
    assert pause["token"] not in read.text


def test_anyone_else_reads_a_thread_that_does_not_exist_and_an_operator_reads_the_stored_one(base, desk):
    decide(base, "u-17", "ana")
    stranger = httpx.get(f"{base}/threads/u-17/decisions", headers=bearer("mallory"), timeout=10)
    made_up = httpx.get(f"{base}/threads/never/decisions", headers=bearer("mallory"), timeout=10)
    assert (stranger.status_code, stranger.json()["message"]) == (made_up.status_code, made_up.json()["message"])
    assert stranger.status_code == 404
    [stored] = {entry["thread"] for entry in desk.storage.recorded()}
    assert stored.endswith(":u-17")  # a signed-in owner's thread is stored under its scoped id
    operator = {**bearer("ops"), "Stalwart-Operator-Token": OPERATOR}
    read = httpx.get(f"{base}/threads/{stored}/decisions", headers=operator, timeout=10)
    assert read.status_code == 200 and [e["mine"] for e in read.json()["decisions"]] == [False]
    wrong = {**bearer("ops"), "Stalwart-Operator-Token": OPERATOR + "x"}
    assert httpx.get(f"{base}/threads/{stored}/decisions", headers=wrong, timeout=10).status_code == 404


def test_a_changed_entry_reads_as_broken_to_its_owner(base, desk):
    decide(base, "u-17", "ana")
    [entry] = desk.storage.recorded()
    with desk.storage._transaction() as db:
        changed = text(entry | {"decision": "skip"})
        desk.storage._execute(db, "UPDATE decisions SET body = :body", {"body": changed})
    read = httpx.get(f"{base}/threads/u-17/decisions", headers=bearer("ana"), timeout=10).json()
    assert read["intact"] is False and read["decisions"][0]["decision"] == "skip"


def test_the_export_is_the_operators_alone_and_pages_through_the_whole_record(base, desk, monkeypatch):
    for n in range(5):
        decide(base, f"u-{n}", f"person-{n}", "skip" if n % 2 else "approve")
    assert httpx.get(f"{base}/audit", headers=bearer("ana"), timeout=10).status_code == 403
    operator = {**bearer("ops"), "Stalwart-Operator-Token": OPERATOR}
    monkeypatch.setattr("stalwart_agents.http.threads.AUDIT_PAGE", 2)
    lines, after, pages = [], None, 0
    while True:
        page = httpx.get(f"{base}/audit", params={"after": after} if after else {}, headers=operator, timeout=10)
        assert page.status_code == 200 and page.headers["content-type"].startswith("application/jsonl")
        lines += [json.loads(line) for line in page.text.splitlines()]
        pages += 1
        after = page.headers.get("stalwart-next")
        if after is None:
            break
    assert pages == 3 and lines == desk.storage.recorded()
    assert [e["decision"] for e in lines] == ["approve", "skip", "approve", "skip", "approve"]

    as_csv = httpx.get(f"{base}/audit", params={"format": "csv"}, headers=operator, timeout=10)
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    assert as_csv.headers["content-type"].startswith("text/csv") and len(rows) == 2
    assert rows[0]["decision"] == "approve" and rows[0]["verified"] == "token" and rows[0]["by_subject"] == "person-0"

    since = httpx.get(f"{base}/audit", params={"since": "2999-01-01"}, headers=operator, timeout=10)
    assert since.status_code == 200 and since.text == ""
    bad = httpx.get(f"{base}/audit", params={"since": "yesterday"}, headers=operator, timeout=10)
    forged = httpx.get(f"{base}/audit", params={"after": "not-a-cursor"}, headers=operator, timeout=10)
    assert (bad.status_code, forged.status_code) == (400, 400) and "since" in bad.json()["message"]
    made_up = [[0, "x", 1e400], [0, "x", 10**30], [0, "a\u0000b", 1], ["0", "x", 1], [0, "x", True], [1e400, "x", 1]]
    for cursor in made_up:
        after = base64.urlsafe_b64encode(json.dumps(cursor).encode()).decode()
        refused = httpx.get(f"{base}/audit", params={"after": after}, headers=operator, timeout=10)
        assert refused.status_code == 400 and refused.json()["error"] == "bad_request", (cursor, refused.text)
    superscript = httpx.get(f"{base}/audit", params={"thread": "x", "after": "\u00b2"}, headers=operator, timeout=10)
    assert superscript.status_code == 400
