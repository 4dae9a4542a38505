"""DynamoDB serves a turn, an answer, the thread's interrupts, the inbox, the log and the history by key: the
requests the store's client sends (counted at boto3, against moto) include no Scan, whose cost grows with the table.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from stalwart_agents import Desk

from ..conftest import REGION, SHOP
from .test_hot_path_plans import a_turn_an_answer_and_the_readings, crowd

boto3 = pytest.importorskip("boto3")
pytest.importorskip("moto")


@pytest.fixture
def dynamodb(moto_endpoint: str, fake_aws: None) -> Iterator[Any]:
    from stalwart_agents.storage.dynamodb import DynamoStorage

    client = boto3.client("dynamodb", region_name=REGION, endpoint_url=moto_endpoint)
    store = DynamoStorage(f"t-{uuid.uuid4().hex}", region=REGION, endpoint=moto_endpoint, client=client)
    store.setup()
    yield store
    store.close()


def test_a_turn_an_answer_and_the_readings_send_no_scan(dynamodb, ledger):
    sent = Counter[str]()
    with Desk.from_file(SHOP, storage=dynamodb) as desk:
        crowd(desk, 12)
        dynamodb.client.meta.events.register("before-call.dynamodb", lambda model, **_: sent.update([model.name]))
        a_turn_an_answer_and_the_readings(desk, "t")
    assert sent["Scan"] == 0 and sent["Query"] > 0 and sent["TransactWriteItems"] >= 3, sent
    assert len(ledger("charge")) == 7
