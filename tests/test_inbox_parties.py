"""GET /interrupts on DynamoDB, over real uvicorn: each open pause is listed under the parties who may answer it
(its thread's owner, the groups, roles, subjects and e-mails its rules name, or anyone where a rule names nobody it
can read), in small items spread over partitions, so a reader reads their parties' listings and not the
deployment's whole inbox; and every reader still sees exactly what they may answer."""

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from stalwart_agents import Desk
from stalwart_agents.approvals.overdue import tick
from stalwart_agents.approvals.parties import named_by, reader_parties
from stalwart_agents.approvals.principal import Principal
from stalwart_agents.http.auth import SharedSecret
from stalwart_agents.serve import make_app
from stalwart_agents.storage.base import ANYONE, owner_party
from stalwart_agents.storage.dynamodb import DynamoStorage
from stalwart_agents.storage.dynamodb_items import LISTING_SHARDS, listing_partition, opened

from .server import serving
from .test_approvers import ALICE, AUDIENCE, FIONA, MALLORY, SECRET, TEAM, shop, token
from .test_deadlines import BOSS, CHARGES_WAIT_FOUR_HOURS, HOUR, Clock, charge

RULES = """
    approvers:
      - name: finance-large
        tool: charge_card
        kind: confirm
        when: "args.amount > 1000"
        who: '"finance" in who.groups'
      - name: shop-staff
        tool: send_receipt
        who: 'who.email.endsWith("@shop.example")'
"""
"""A rule whose ``who`` names a group, and one whose ``who`` names nobody it can read (listed under anyone)."""
RITA = Principal(TEAM, "rita", {"email": "rita@shop.example"})
"""Staff by her e-mail alone: the receipts' rule reaches her through ``anyone``."""


@contextlib.contextmanager
def served(tmp_path: Path, storage: str) -> Iterator[tuple[httpx.Client, Desk]]:
    with (
        Desk.from_file(shop(tmp_path, RULES), storage=storage) as desk,
        serving(make_app(desk, auth=SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE))) as base,
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        yield client, desk


@pytest.fixture
def shop_on_dynamodb(tmp_path, dynamodb_url, ledger):
    with served(tmp_path, dynamodb_url) as both:
        yield both


def say(client: httpx.Client, who: Principal, thread: str, text: str) -> list[dict]:
    reply = client.post(f"/threads/{thread}/messages", json={"text": text}, headers=token(who))
    assert reply.status_code == 200, reply.text
    return reply.json()["waiting"]


def threads_listed(client: httpx.Client, who: Principal) -> list[str]:
    answer = client.get("/interrupts", headers=token(who))
    assert answer.status_code == 200, answer.text
    return [pause["thread"].rpartition(":")[2] for pause in answer.json()["waiting"]]  # each owner's id, unscoped


@contextlib.contextmanager
def dynamodb_reads(desk: Desk) -> Iterator[list[tuple[dict[str, Any], dict[str, Any]]]]:
    """Every Query the store sends while this lasts, with DynamoDB's answer: (request, response)."""
    store = desk.storage
    assert isinstance(store, DynamoStorage)
    client, asked, answered = store.client, [], []
    ask = lambda params, model, **_: asked.append(params) if model.name == "Query" else None  # noqa: E731
    answer = lambda parsed, model, **_: answered.append(parsed) if model.name == "Query" else None  # noqa: E731
    client.meta.events.register("provide-client-params.dynamodb", ask)
    client.meta.events.register("after-call.dynamodb", answer)
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    try:
        yield pairs
    finally:
        client.meta.events.unregister("provide-client-params.dynamodb", ask)
        client.meta.events.unregister("after-call.dynamodb", answer)
        pairs += list(zip(asked, answered, strict=True))


def partition_of(query: dict[str, Any]) -> str:
    return query.get("IndexName") or query["ExpressionAttributeValues"][":v0"]["S"]


def test_a_reader_reads_only_their_parties_listings_and_sees_exactly_what_they_may_answer(shop_on_dynamodb):
    client, desk = shop_on_dynamodb
    for n in range(12):
        say(client, ALICE, f"alice-{n}", f"charge {40 + n} to order 4411")  # Alice's alone: no rule governs them
    say(client, MALLORY, "mallory-large", "charge 3000 to order 4412")  # finance's
    say(client, ALICE, "alice-receipt", "send the receipt for order 4411")  # staff's, by a rule read as anyone

    with dynamodb_reads(desk) as fionas:
        assert threads_listed(client, FIONA) == ["mallory-large"]
    # Fiona (finance) read the listings of her parties alone: the finance pause, and the receipt listed under anyone
    fiona = Principal(TEAM, "fiona", {"groups": ["finance"]})
    hers = {listing_partition(party, shard) for party in reader_parties(fiona) for shard in range(LISTING_SHARDS)}
    assert {partition_of(query) for query, _ in fionas} <= hers | {"inbox"}
    assert sum(answer["ScannedCount"] for _, answer in fionas) == 2  # not the 14 pauses open in the deployment

    assert threads_listed(client, RITA) == ["alice-receipt"]
    assert threads_listed(client, MALLORY) == []  # her large charge is finance's
    assert threads_listed(client, ALICE) == ["alice-receipt", *(f"alice-{n}" for n in reversed(range(12)))]


def test_each_pause_is_listed_in_small_items_spread_over_partitions_and_unlisted_when_answered(shop_on_dynamodb):
    client, desk = shop_on_dynamodb
    large = [say(client, ALICE, f"large-{n}", f"charge {2000 + n} to order 4411")[0] for n in range(8)]
    listings = [item for item in scan(desk.storage) if item["pk"]["S"].startswith("I#")]
    finance = {listing_partition("group:finance", shard) for shard in range(LISTING_SHARDS)}
    alices = {listing_partition(owner_party(ALICE.key), shard) for shard in range(LISTING_SHARDS)}
    assert len({item["pk"]["S"] for item in listings} & finance) > 1  # a group's writes on more than one key
    assert {item["pk"]["S"] for item in listings} <= finance | alices
    assert len(listings) == 2 * len(large)  # each under its owner and finance, never under one shared key
    assert all(set(item) == {"pk", "sk", "run", "thread", "kind", "tool", "expires", "tx"} for item in listings)

    body = {"interrupt_id": large[0]["id"], "token": large[0]["token"], "decision": "approve"}
    answered = client.post(f"/threads/{large[0]['thread']}/resume", json=body, headers=token(FIONA))
    assert answered.status_code == 200, answered.text
    left = [item for item in scan(desk.storage) if item["pk"]["S"].startswith("I#")]
    assert len(left) == 2 * (len(large) - 1) and not any(item["sk"]["S"].endswith(large[0]["id"]) for item in left)
    assert threads_listed(client, FIONA) == [f"large-{n}" for n in reversed(range(1, 8))]


def test_a_pause_opened_before_listings_is_read_from_the_old_index_until_it_closes(shop_on_dynamodb):
    client, desk = shop_on_dynamodb
    [pause] = say(client, MALLORY, "old", "charge 3000 to order 4412")
    store = desk.storage
    assert isinstance(store, DynamoStorage)
    for item in scan(store):  # as a pause opened before listings is stored: in the old index, listed nowhere
        if item["pk"]["S"].startswith("I#"):
            store.client.delete_item(TableName=store.table, Key={"pk": item["pk"], "sk": item["sk"]})
    [stored] = [item for item in scan(store) if item["sk"]["S"] == f"P#{pause['id']}"]
    place = {":open": {"S": "open"}, ":at": {"S": opened(float(stored["created_at"]["N"]), pause["id"])}}
    store.client.update_item(
        TableName=store.table,
        Key={"pk": stored["pk"], "sk": stored["sk"]},
        UpdateExpression="SET inbox = :open, opened = :at REMOVE parties",
        ExpressionAttributeValues=place,
    )
    cold = DynamoStorage(store.table, region=store.region, endpoint=store.endpoint)  # a process that never saw it
    assert [entry.pause.id for entry in cold.inbox(parties=("group:finance",))] == [pause["id"]]
    assert threads_listed(client, FIONA) == ["old"]
    body = {"interrupt_id": pause["id"], "token": pause["token"], "decision": "approve"}
    assert client.post(f"/threads/{pause['thread']}/resume", json=body, headers=token(FIONA)).status_code == 200
    assert threads_listed(client, FIONA) == [] and cold.inbox(parties=("group:finance",)) == []
    cold.close()


def scan(store: Any) -> list[dict[str, Any]]:
    return store.client.scan(TableName=store.table, ConsistentRead=True)["Items"]


@pytest.mark.parametrize(
    ("who", "parties"),
    [
        ('"finance" in who.groups', {"group:finance"}),
        ('"approver" in who.roles || who.sub == "ops-1"', {"role:approver", "sub:ops-1"}),
        ('who.email == "cfo@shop.example" && who.verified', {"email:cfo@shop.example"}),
        ("who.owner || who.owner && !who.link", set()),
        ('"finance" in who.groups && who.email.endsWith("@shop.example")', {"group:finance"}),
        ('who.email.endsWith("@shop.example")', None),
        ("!who.link", None),
        ('"finance" in who.groups || who.verified', None),
    ],
)
def test_a_who_is_read_for_the_parties_it_names_and_anyone_where_it_names_nobody_it_can_read(who, parties):
    assert named_by(who) == (None if parties is None else frozenset(parties))


def test_a_reader_reads_as_their_own_key_subject_email_groups_roles_and_anyone():
    reader = Principal(TEAM, "fiona", {"groups": ["finance", "audit"], "roles": "approver", "email": "f@x"})
    assert set(reader_parties(reader)) == {
        owner_party(reader.key),
        "sub:fiona",
        "email:f@x",
        "group:finance",
        "group:audit",
        "role:approver",
        ANYONE,
    }


def test_an_escalation_reaches_the_parties_it_names_once_the_clock_escalates(tmp_path, dynamodb_url, ledger):
    """The escalation's parties are listed when the pause opens; the rules show it to them once it escalates."""
    clock = Clock()
    with Desk.from_file(shop(tmp_path, CHARGES_WAIT_FOUR_HOURS), storage=dynamodb_url, clock=clock) as desk:
        pause = charge(desk)
        listings = {item["pk"]["S"] for item in scan(desk.storage) if item["pk"]["S"].startswith("I#")}
        managers = {listing_partition("group:managers", shard) for shard in range(LISTING_SHARDS)}
        assert listings & managers and desk.inbox(BOSS).waiting == []
        clock.later(2 * HOUR)
        assert tick(desk).escalated == [pause.id]
        assert [waiting.id for waiting in desk.inbox(BOSS).waiting] == [pause.id]
        assert [waiting.id for waiting in desk.inbox(ALICE).waiting] == [pause.id]  # the owner, still
        assert desk.inbox(MALLORY).waiting == []
