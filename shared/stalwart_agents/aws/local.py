"""``stalwart serve --storage moto``: the deployed shape, on one machine.

moto's DynamoDB server runs on 127.0.0.1, the store creates its table from the
definition template.yaml mirrors, and the table's stream feeds the same
fan-out code as the deployed function, filtered the same way; so webhooks
behave locally as they do once deployed.  Nothing here runs on Lambda.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import threading
import time
import types
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..storage import Storage
from .fanout import Notify, deliver

log = logging.getLogger("stalwart_agents")
ATTEMPTS = 4
TOKEN_WINDOW = 600.0
"""Seconds DynamoDB answers a repeated ClientRequestToken as the request it first carried."""


class LocalAws:
    """A moto server and, when asked, a thread that feeds the table's stream to the fan-out."""

    def __init__(self, table: str = "stalwart", region: str = "us-east-1") -> None:
        self.table, self.region = table, region
        self._stop = threading.Event()
        self._server: Any = None
        self._feeder: threading.Thread | None = None

    def start(self) -> str:
        """Start moto on a free port of 127.0.0.1; the storage URL that reaches it."""
        for name, value in (
            ("AWS_ACCESS_KEY_ID", "local"),
            ("AWS_SECRET_ACCESS_KEY", "local"),
            ("AWS_DEFAULT_REGION", self.region),
        ):
            os.environ.setdefault(name, value)
        self._server, self.endpoint = start_moto()
        return f"dynamodb://{self.table}?region={self.region}&endpoint={self.endpoint}"

    def feed(self, store: Storage, notify: Notify, *, every: float = 0.2) -> None:
        """Read the table's stream as Lambda would, and hand new records to the fan-out."""
        self._feeder = threading.Thread(
            target=self._feed, args=(store, notify, every), name="stalwart-stream", daemon=True
        )
        self._feeder.start()

    def stop(self) -> None:
        self._stop.set()
        if self._feeder is not None:
            self._feeder.join(timeout=5)
        if self._server is not None:
            self._server.stop()

    def _feed(self, store: Storage, notify: Notify, every: float) -> None:
        import boto3

        streams = boto3.client("dynamodbstreams", region_name=self.region, endpoint_url=self.endpoint)
        arn = boto3.client("dynamodb", region_name=self.region, endpoint_url=self.endpoint).describe_table(
            TableName=self.table
        )["Table"]["LatestStreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="LATEST")["ShardIterator"]
        pending: list[Mapping[str, Any]] = []
        tries = 0
        while not self._stop.wait(every):
            answer = streams.get_records(ShardIterator=iterator)
            iterator = answer["NextShardIterator"]
            pending += answer["Records"]
            pending, tries = self._deliver(pending, tries, store, notify)

    def _deliver(
        self, pending: list[Mapping[str, Any]], tries: int, store: Storage, notify: Notify
    ) -> tuple[list[Mapping[str, Any]], int]:
        """Deliver what is pending; keep what failed for another try, as the stream keeps its shard."""
        failed = deliver(pending, store, notify)
        if not failed:
            return [], 0
        first = next(i for i, r in enumerate(pending) if r["dynamodb"]["SequenceNumber"] == failed[0])
        if tries + 1 >= ATTEMPTS:
            log.warning(
                "a webhook delivery failed %d times; it is dropped, as the dead-letter queue would take it", ATTEMPTS
            )
            return pending[first + 1 :], 0
        return pending[first:], tries + 1


def start_moto() -> tuple[Any, str]:
    """moto's server on a free port of 127.0.0.1, made to decide transactions as DynamoDB does; and its URL."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    _back_up_each_table_once()
    _honour_client_request_tokens()
    _limit_items_as_dynamodb_does()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    wsgi = server._server
    assert wsgi is not None
    wsgi.app = _one_request_at_a_time(wsgi.app)
    host, port = server.get_host_and_port()
    return server, f"http://{host}:{port}"


def _one_request_at_a_time(app: Callable[..., Iterable[bytes]]) -> Callable[..., list[bytes]]:
    """moto applies a transaction as check-then-write without a lock, where DynamoDB decides each atomically:
    serving one request at a time gives racing answers DynamoDB's outcome."""
    lock = threading.Lock()

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        with lock:
            return list(app(environ, start_response))

    return serve


def _back_up_each_table_once() -> None:
    """moto backs a table up before a transaction once per item it writes, each a deep copy of the whole table with
    every record its stream kept: quadratic, minutes for a 700-item run.  The copies are identical, so make one."""
    from moto.dynamodb import models
    from moto.dynamodb.models.table import Table

    transact_write_items = models.DynamoDBBackend.transact_write_items
    if getattr(transact_write_items, "backs_up_once", False):
        return

    def backed_up_once(backend: Any, transact_items: list[dict[str, Any]]) -> None:
        backups: dict[int, Any] = {}

        def deepcopy(value: Any) -> Any:
            if not isinstance(value, Table):
                return copy.deepcopy(value)
            if id(value) not in backups:
                backups[id(value)] = copy.deepcopy(value)
            return backups[id(value)]

        setattr(models, "copy", types.SimpleNamespace(deepcopy=deepcopy))
        try:
            transact_write_items(backend, transact_items)
        finally:
            setattr(models, "copy", copy)

    setattr(backed_up_once, "backs_up_once", True)
    setattr(models.DynamoDBBackend, "transact_write_items", backed_up_once)


def _honour_client_request_tokens() -> None:
    """moto ignores a TransactWriteItems' ClientRequestToken; DynamoDB answers a repeat of a transaction that
    succeeded, within ten minutes, as a success without applying it again, and the same token on a different
    request with IdempotentParameterMismatchException.  A retried success must look the same here as there."""
    from moto.core.responses import ActionResult
    from moto.dynamodb.exceptions import ERROR_TYPE_PREFIX, DynamodbException
    from moto.dynamodb.responses import DynamoHandler

    transact_write_items = DynamoHandler.transact_write_items
    if getattr(transact_write_items, "honours_tokens", False):
        return
    succeeded: OrderedDict[tuple[str, str, str], tuple[float, str]] = OrderedDict()
    lock = threading.Lock()

    def idempotent(handler: Any) -> Any:
        token = handler.body.get("ClientRequestToken")
        if token is None:
            return transact_write_items(handler)
        request = json.dumps({name: value for name, value in handler.body.items() if name != "ClientRequestToken"})
        key = (handler.current_account, handler.region, token)
        with lock:
            now = _clock()
            while succeeded and next(iter(succeeded.values()))[0] < now - TOKEN_WINDOW:
                succeeded.popitem(last=False)
            if key in succeeded:
                if succeeded[key][1] != request:
                    raise DynamodbException(
                        ERROR_TYPE_PREFIX + "IdempotentParameterMismatchException",
                        "The request uses the same client token as a previous, but non-identical request.",
                    )
                return ActionResult({"ConsumedCapacity": [], "ItemCollectionMetrics": {}})
            answer = transact_write_items(handler)
            succeeded[key] = (now, request)
            return answer

    setattr(idempotent, "honours_tokens", True)
    setattr(DynamoHandler, "transact_write_items", idempotent)


def _clock() -> float:
    return time.monotonic()


def _limit_items_as_dynamodb_does() -> None:
    """moto refuses an item over 405,000 bytes, counting numbers as text; DynamoDB refuses one over 400 KB, counted
    by its documented rules, which the store checks before sending: moto is made to count as DynamoDB does."""
    from moto.dynamodb.exceptions import ItemSizeTooLarge
    from moto.dynamodb.models.dynamo_type import DynamoType, LimitedSizeDict
    from moto.dynamodb.models.utilities import bytesize

    from ..storage.dynamodb_sizes import ITEM_LIMIT, value_size

    def size(value: Any) -> int:
        if type(value) is not DynamoType:
            return int(bytesize(str(value)))
        return value_size(value.to_json()) if value.type in ("S", "N") else int(value.size())

    def set_within_limit(item: dict[str, Any], name: str, value: Any) -> None:
        stored = sum(bytesize(key) + size(held) for key, held in item.items() if key != name)
        if stored + bytesize(name) + size(value) > ITEM_LIMIT:
            raise ItemSizeTooLarge
        dict.__setitem__(item, name, value)

    setattr(LimitedSizeDict, "__setitem__", set_within_limit)
