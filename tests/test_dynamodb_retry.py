"""A retried transaction that succeeded is that success: ClientRequestToken, on DynamoDB as moto is made to answer it.

botocore resends a TransactWriteItems after a read timeout.  When the first try had
been applied, the resend's conditions fail; with the commit's request token, DynamoDB
answers it as the success it was.  These tests let the winning answer's claim reach
moto's server and be applied, lose its answer, and let the other answer run in between.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

boto3 = pytest.importorskip("boto3")
pytest.importorskip("moto.server")

from botocore.exceptions import ClientError, ReadTimeoutError  # noqa: E402
from botocore.handlers import generate_idempotent_uuid  # noqa: E402
from botocore.httpsession import URLLib3Session  # noqa: E402
from botocore.stub import Stubber  # noqa: E402

from stalwart_agents import (  # noqa: E402
    Desk,
    InterruptStale,
)
from stalwart_agents.aws import local as aws_local  # noqa: E402
from stalwart_agents.errors import StorageError  # noqa: E402
from stalwart_agents.storage.dynamodb import DynamoStorage  # noqa: E402
from stalwart_agents.storage.dynamodb_schema import create_table_arguments  # noqa: E402

from .conftest import SHOP  # noqa: E402
from .storage.writes import append_event  # noqa: E402

REGION = "us-east-1"
CLAIM = "look up order 4411 and charge 40 to order 4411"


@pytest.fixture
def url(dynamodb_url: str) -> str:
    return dynamodb_url


class LostAnswers:
    """On one client: the claiming TransactWriteItems (the one that answers a pause) reaches moto for real, then its
    answer is lost as a read timeout, ``times`` times (-1: always); ``meanwhile`` runs after the first."""

    def __init__(self, client: Any, meanwhile: Callable[[], None] = lambda: None, times: int = 1) -> None:
        self.meanwhile, self.left, self.reached = meanwhile, times, 0
        self._http = URLLib3Session()
        client.meta.events.register("before-send.dynamodb.TransactWriteItems", self._send)

    def _send(self, request: Any, **_: Any) -> None:
        if self.left == 0 or b'"answered"' not in request.body:
            return
        self.left -= 1
        answer = self._http.send(request)
        assert answer.status_code == 200, answer.content
        self.reached += 1
        if self.reached == 1:
            self.meanwhile()
        raise ReadTimeoutError(endpoint_url=request.url)


def without_tokens(client: Any) -> None:
    """Requests as moto saw them before it honoured tokens: without ClientRequestToken (botocore fills one in where
    it is missing, once per call, which DynamoDB honours and moto ignored)."""
    client.meta.events.unregister("before-parameter-build", generate_idempotent_uuid)
    client.meta.events.register(
        "before-parameter-build.dynamodb.TransactWriteItems", lambda params, **_: params.pop("ClientRequestToken", None)
    )


def answered_by(desk: Desk, thread: str, pause: Any) -> Callable[[], Any]:
    return lambda: desk.confirm(thread, "approve", waiting=pause.id, token=pause.token)


def refused_meanwhile(desk: Desk, thread: str, pause: Any, codes: list[str]) -> Callable[[], None]:
    """The other answer, given while the winner waits for DynamoDB's answer: refused as stale, its code noted."""

    def answer() -> None:
        with pytest.raises(InterruptStale) as refused:
            answered_by(desk, thread, pause)()
        codes.append(refused.value.code)

    return answer


@pytest.fixture
def two_desks(url: str, ledger: Any) -> Iterator[tuple[Desk, Desk]]:
    with Desk.from_file(SHOP, storage=url) as winner, Desk.from_file(SHOP, storage=url) as loser:
        yield winner, loser


def test_a_retried_claim_that_succeeded_is_the_winners_success_and_the_charge_runs_once(
    two_desks: Any, ledger: Any
) -> None:
    winner, loser = two_desks
    pause = winner.send("t-1", CLAIM).waiting[0]
    lost: list[str] = []
    retried = LostAnswers(winner.storage.client, refused_meanwhile(loser, "t-1", pause, lost))
    reply = answered_by(winner, "t-1", pause)()
    assert retried.reached == 1 and lost == ["interrupt_stale"]
    assert reply.status == "done"
    assert [charge["order_id"] for charge in ledger("charge")] == ["4411"]
    assert winner.storage.get_pause(pause.id).status == "answered" and winner.storage.last_run("t-1").status == "done"


def test_without_the_token_the_same_retry_lost_the_charge(two_desks: Any, ledger: Any) -> None:
    """The failure the token removes: the winner's own retry finds the pause answered, by itself."""
    winner, loser = two_desks
    pause = winner.send("t-1", CLAIM).waiting[0]
    without_tokens(winner.storage.client)
    lost: list[str] = []
    LostAnswers(winner.storage.client, refused_meanwhile(loser, "t-1", pause, lost))
    with pytest.raises(InterruptStale):
        answered_by(winner, "t-1", pause)()
    assert lost == ["interrupt_stale"]
    assert ledger("charge") == [] and winner.storage.last_run("t-1").status == "running"


def test_an_answer_that_never_comes_is_settled_by_reading_the_token_back(
    two_desks: Any, ledger: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    winner, _ = two_desks
    pause = winner.send("t-1", CLAIM).waiting[0]
    with Desk.from_file(SHOP, storage=winner.storage.url) as cut_off:
        storage = cut_off.storage
        assert isinstance(storage, DynamoStorage)
        calls: list[str] = []
        storage.client.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
        lost = LostAnswers(storage.client, times=-1)
        reply = answered_by(cut_off, "t-1", pause)()
    assert reply.status == "done" and lost.reached > 1 and "GetItem" in calls
    assert [charge["order_id"] for charge in ledger("charge")] == ["4411"]


# what the store sends


def sent_tokens(client: Any) -> list[str]:
    tokens: list[str] = []
    client.meta.events.register(
        "before-parameter-build.dynamodb.TransactWriteItems",
        lambda params, **_: tokens.append(params["ClientRequestToken"]),
    )
    return tokens


@pytest.fixture
def stubbed() -> Iterator[tuple[DynamoStorage, Stubber, list[str]]]:
    client = boto3.client("dynamodb", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    tokens = sent_tokens(client)
    with Stubber(client) as stub:
        yield DynamoStorage("runs-table", region=REGION, client=client), stub, tokens


def test_each_attempt_at_a_commit_has_its_own_token_and_a_transaction_in_progress_is_resent_with_it(
    stubbed: Any,
) -> None:
    store, stub, tokens = stubbed
    conflict = {"CancellationReasons": [{"Code": "TransactionConflict"}, {"Code": "None"}]}
    stub.add_client_error("transact_write_items", "TransactionCanceledException", modeled_fields=conflict)
    stub.add_client_error("transact_write_items", "TransactionInProgressException")
    stub.add_response("transact_write_items", {})
    assert append_event(store, "thread-a", {"n": 1}) == 1
    stub.assert_no_pending_responses()
    assert len(tokens) == 3 and tokens[0] != tokens[1] == tokens[2] and all(len(token) <= 36 for token in tokens)


def test_a_token_reused_by_another_request_is_a_clear_storage_error(stubbed: Any) -> None:
    store, stub, _ = stubbed
    stub.add_client_error("transact_write_items", "IdempotentParameterMismatchException", "token reused")
    with pytest.raises(StorageError, match="runs-table refused a commit whose request token another request used"):
        append_event(store, "thread-a", {"n": 1})


# moto, made to answer a token as DynamoDB does


def counting_transaction(table: str, token: str, step: int = 1) -> dict[str, Any]:
    update = {
        "TableName": table,
        "Key": {"pk": {"S": "C#1"}, "sk": {"S": "COUNT"}},
        "UpdateExpression": "ADD n :step",
        "ExpressionAttributeValues": {":step": {"N": str(step)}},
    }
    return {"TransactItems": [{"Update": update}], "ClientRequestToken": token}


@pytest.fixture
def raw(url: str, moto_endpoint: str) -> tuple[Any, str]:
    client = boto3.client("dynamodb", region_name=REGION, endpoint_url=moto_endpoint)
    table = f"t-{uuid.uuid4().hex}"
    client.create_table(**create_table_arguments(table))
    return client, table


def count(client: Any, table: str) -> int:
    item = client.get_item(TableName=table, Key={"pk": {"S": "C#1"}, "sk": {"S": "COUNT"}}, ConsistentRead=True)
    return int(item["Item"]["n"]["N"])


def test_moto_answers_a_repeated_token_as_the_success_it_was_without_applying_it_again(raw: Any) -> None:
    client, table = raw
    token = uuid.uuid4().hex
    client.transact_write_items(**counting_transaction(table, token))
    client.transact_write_items(**counting_transaction(table, token))
    assert count(client, table) == 1
    client.transact_write_items(**counting_transaction(table, uuid.uuid4().hex))
    assert count(client, table) == 2


def test_moto_refuses_a_token_reused_by_a_different_request(raw: Any) -> None:
    client, table = raw
    token = uuid.uuid4().hex
    client.transact_write_items(**counting_transaction(table, token))
    with pytest.raises(ClientError) as refused:
        client.transact_write_items(**counting_transaction(table, token, step=5))
    assert refused.value.response["Error"]["Code"] == "IdempotentParameterMismatchException"
    assert count(client, table) == 1


def test_moto_forgets_a_token_after_ten_minutes(raw: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    client, table = raw
    token = uuid.uuid4().hex
    client.transact_write_items(**counting_transaction(table, token))
    later = aws_local._clock() + aws_local.TOKEN_WINDOW + 1
    monkeypatch.setattr(aws_local, "_clock", lambda: later)
    client.transact_write_items(**counting_transaction(table, token, step=5))
    assert count(client, table) == 6


def test_moto_answers_a_failed_transaction_again_by_its_conditions(raw: Any) -> None:
    client, table = raw
    request = counting_transaction(table, uuid.uuid4().hex)
    request["TransactItems"][0]["Update"]["ConditionExpression"] = "attribute_exists(n)"
    for _ in range(2):
        with pytest.raises(ClientError) as refused:
            client.transact_write_items(**request)
        assert refused.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert "Item" not in client.get_item(TableName=table, Key={"pk": {"S": "C#1"}, "sk": {"S": "COUNT"}})
