"""An audit of every answer: who answered what, when, through which channel, and what then ran."""

import hashlib
from typing import Any

import pytest

from stalwart_agents import Desk, InterruptStale, NotFound

from .conftest import SHOP
from .test_race import race


def digest(token):
    return hashlib.sha256(token.encode()).hexdigest()[:16]


def test_a_taken_answer_is_recorded_with_who_how_and_what_then_ran(desk):
    pause = desk.send("u-17", "look up order 4411 and charge 40 to order 4411").waiting[0]
    desk.confirm("u-17", "approve", waiting=pause.id, token=pause.token, channel="http", by="ana@shop")

    [record] = desk.history("u-17")
    assert (record["pause"], record["decision"], record["outcome"]) == (pause.id, "approve", "taken")
    assert (record["channel"], record["by"], record["token"]) == ("http", "ana@shop", digest(pause.token))
    assert record["tool"] == "charge_card" and record["arguments"] == pause.arguments and record["at"]
    assert [(call["tool"], call["status"]) for call in record["ran"]] == [("charge_card", "done")]
    assert record["ran"][0]["arguments"] == pause.arguments
    assert pause.token not in str(desk.history("u-17"))


def test_refused_answers_are_recorded_with_why(desk):
    pause = desk.send("u-17", "charge 40 to order 4411").waiting[0]
    with pytest.raises(InterruptStale):
        desk.confirm("u-17", "approve", waiting=pause.id, token="guessed", by="mallory")
    desk.confirm("u-17", "skip", waiting=pause.id, token=pause.token, by="ana")
    with pytest.raises(InterruptStale):
        desk.confirm("u-17", "approve", waiting=pause.id, token=pause.token, by="bob")

    records = desk.history("u-17")
    assert [(r["by"], r["outcome"], r.get("error")) for r in records] == [
        ("mallory", "refused", "interrupt_stale"),
        ("ana", "taken", None),
        ("bob", "refused", "interrupt_stale"),
    ]
    assert records[0]["token"] == digest("guessed") and records[1]["ran"] == [] and records[2]["ran"] == []


def test_an_answer_to_a_thread_that_does_not_exist_leaves_no_log(desk):
    with pytest.raises(NotFound):
        desk.confirm("nobody", "approve")
    assert desk.history("nobody") == []


@pytest.mark.timeout(120)
def test_the_audit_of_a_race_shows_one_winning_answer_and_the_refused_one(tmp_path, ledger):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    desk = Desk.from_file(SHOP, storage=url)
    pause = desk.send("race", "charge 40 to order 4411").waiting[0]
    assert race(url, "race", pause) == [("ok", "done"), ("stale", None)]

    records: list[dict[str, Any]] = desk.history("race")
    assert sorted(r["outcome"] for r in records) == ["refused", "taken"]
    taken = next(r for r in records if r["outcome"] == "taken")
    refused = next(r for r in records if r["outcome"] == "refused")
    assert [call["tool"] for call in taken["ran"]] == ["charge_card"] and refused["error"] == "interrupt_stale"
    assert taken["token"] == refused["token"] == digest(pause.token)
    assert len(ledger("charge")) == 1
