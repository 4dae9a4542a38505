"""The DynamoDB table's definition: the one source of truth for the backend and template.yaml.

One table holds everything, each item under a partition named by what it belongs to:

    pk                sk                    what
    T#<thread>        THREAD                the thread: active_run, last_run, seq (its event counter);
                                            while it has an active run, live (a shard, for the live index)
    T#<thread>        E#<seq, 12 digits>    an event of the thread's log
    T#<thread>        S#<message id>        a reply shown to a session
    R#<run>           RUN                   the run
    R#<run>           P#<pause id>          a pause of the run (pid: its id, for the by_id index)
    R#<run>           J#<key>               a journal entry of the run
    K#<name>          SECRET                a shared secret (the session key)
    F#<message id>    FEEDBACK              a thumb

A run's pauses and journal share its partition, so one strongly consistent
Query reads all a replay needs.  ``expires`` (TTL) only cleans up finished
threads' leftovers; nothing relies on it for correctness.
"""

from __future__ import annotations

from typing import Any

TTL_ATTRIBUTE = "expires"

TABLE: dict[str, Any] = {
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
        {"AttributeName": "pid", "AttributeType": "S"},
        {"AttributeName": "live", "AttributeType": "S"},
    ],
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "by_id",
            "KeySchema": [{"AttributeName": "pid", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        },
        {
            "IndexName": "live",
            "KeySchema": [
                {"AttributeName": "live", "KeyType": "HASH"},
                {"AttributeName": "pk", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["active_run", "expires"]},
        },
    ],
    "BillingMode": "PAY_PER_REQUEST",
    "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
}


def create_table_arguments(name: str) -> dict[str, Any]:
    """What boto3's ``create_table`` takes for a table of this shape named ``name``."""
    return {"TableName": name, **TABLE}
