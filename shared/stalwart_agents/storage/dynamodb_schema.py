"""The DynamoDB table's definition: the one source of truth for the backend and template.yaml.

One table holds everything, each item under a partition named by what it belongs to:

    pk                sk                    what
    T#<thread>        THREAD                the thread: active_run, last_run, seq (its event counter), owner;
                                            while it has an active run, live (a shard, for the live index)
    T#<thread>        OWNER                 the owner of a thread owned before owners moved onto THREAD (read only)
    T#<thread>        E#<seq, 12 digits>    an event of the thread's log
    R#<run>           RUN                   the run
    R#<run>           P#<pause id>          a pause of the run (pid: its id, for the by_id index; claimed and
                                            delivered: its announcement's claim and whether it was delivered;
                                            tool: its payload's tool; while it is open, parties: the parties
                                            it is listed under, and with a wake_at, wake (a shard), for the
                                            wake index; a pause opened before listings: while it is open,
                                            inbox and opened, for the old inbox index)
    I#<party>#<shard> <opened>              an open pause listed for the inbox under one party who may answer
                                            it (the party a digest, the shard by the pause's id): its run,
                                            thread, kind and tool
    R#<run>           J#<key>               a journal entry of the run
    M#<message id>    SHOWN                 a reply as shown to a session
    K#<name>          SECRET                a shared secret (the session key)
    F#<message id>    FEEDBACK              a thumb
    A#<thread>        D#<seq, 12 digits>    an entry of the thread's decision record (body: the entry's JSON;
                                            rk: a shard and rt: its time, thread and seq, for the record index)
    A#<thread>        HEAD                  where the thread's decision record ends: seq and digest (rk: a
                                            heads shard and rt: the thread, for the record index)

A run's pauses and journal share its partition, so one strongly consistent
Query reads all a replay needs.  Every item but a secret and the decision record carries ``expires``
(epoch seconds, for TTL: the retention after it was last written), and each
item a commit writes carries ``tx`` (that commit's request token, so a commit
whose answer was lost can be read back).  Each open pause is listed for the inbox
under each party who may answer it (``approvals.parties``: its thread's owner, the
groups, roles, subjects and e-mails its rules name, or ``anyone``), one small item
a party in a partition of that party's (``LISTING_SHARDS`` a party), sorted by
``opened`` (when and which, see ``dynamodb_items.opened``): written in the commit
that opens the pause, deleted in the one that answers or closes it.  No key takes
every pause, so opening and answering spread over as many partitions as there are
parties; a reader queries their own parties' partitions and reads what those list.
The sparse ``inbox`` index (one key, ``inbox`` = ``open``) holds only pauses opened
before listings, read until they close.  The sparse ``wake`` index holds the open pauses
the clock has work on (a deadline's reminder, escalation or expiry), in
``WAKE_SHARDS`` shards (``wake``) sorted by ``wake_at`` (a number, the record's
own field): ``due_pauses`` reads what is due and nothing else.  The commit that
answers or closes a pause, and a ``set_wake`` that leaves nothing to do, remove
both.  It projects ``expires`` alone: every move of a wake rewrites the pause's
index entry, which stays small however large the pause, and ``due_pauses``
reads the due pauses themselves, consistently, by key.  ``prune`` moves ``expires`` on for threads the
live index lists (and for their open pauses' listings), so TTL only removes what no
active run needs.  TTL deletes
expired items one by one, days later and in no order, so every read takes an
expired item for absent: a thread that expired is wholly gone, and its id is new.  The decision record
outlives it: its entries never expire, and the sparse ``record`` index lists every entry in ``RECORD_SHARDS``
shards by time, for an export, and every head in as many more by thread, for a verifier.
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
        {"AttributeName": "inbox", "AttributeType": "S"},
        {"AttributeName": "opened", "AttributeType": "S"},
        {"AttributeName": "wake", "AttributeType": "S"},
        {"AttributeName": "wake_at", "AttributeType": "N"},
        {"AttributeName": "rk", "AttributeType": "S"},
        {"AttributeName": "rt", "AttributeType": "S"},
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
        {
            "IndexName": "inbox",
            "KeySchema": [
                {"AttributeName": "inbox", "KeyType": "HASH"},
                {"AttributeName": "opened", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        },
        {
            "IndexName": "wake",
            "KeySchema": [
                {"AttributeName": "wake", "KeyType": "HASH"},
                {"AttributeName": "wake_at", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["expires"]},
        },
        {
            "IndexName": "record",
            "KeySchema": [
                {"AttributeName": "rk", "KeyType": "HASH"},
                {"AttributeName": "rt", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["body", "seq", "digest"]},
        },
    ],
    "BillingMode": "PAY_PER_REQUEST",
    "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
}


def create_table_arguments(name: str) -> dict[str, Any]:
    """What boto3's ``create_table`` takes for a table of this shape named ``name``."""
    return {"TableName": name, **TABLE}
