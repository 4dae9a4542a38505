"""The fan-out: new pauses, read from the table's stream, posted to the team's webhook.

Only inserts of pause items should reach it (the template's FilterCriteria), but
it checks again.  Each pause is read back from the store before it is posted, so
one already answered is not announced; each delivery's outcome is written on the
pause, so ``GET /threads/{id}/interrupts`` can say what was not notified.  The
first failed record is reported in ``batchItemFailures`` and nothing after it is
posted: the stream retries from there (bounded by the template) and, past that,
the record goes to the dead-letter queue.  Receivers dedupe on the delivery id.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from .announce import Notify, announce
from .pause import Pause
from .storage import Storage, open_storage
from .webhook import Webhook

__all__ = ["Notify", "deliver", "handler"]


def deliver(records: Iterable[Mapping[str, Any]], store: Storage, notify: Notify) -> list[str]:
    """Post each new pause of ``records``; the sequence number of the first that failed, if any."""
    for record in records:
        pause = _new_pause(record, store)
        if pause is not None and announce(store, notify, pause) is not None:
            return [record["dynamodb"]["SequenceNumber"]]
    return []


def _new_pause(record: Mapping[str, Any], store: Storage) -> Pause | None:
    keys = record.get("dynamodb", {}).get("Keys", {})
    pk, sk = keys.get("pk", {}).get("S", ""), keys.get("sk", {}).get("S", "")
    if record.get("eventName") != "INSERT" or not (pk.startswith("R#") and sk.startswith("P#")):
        return None
    stored = next((p for p in store.run_pauses(pk[2:]) if p.id == sk[2:]), None)
    return Pause.from_record(stored) if stored is not None and stored.status == "open" else None


def handler(event: Mapping[str, Any], context: object) -> dict[str, list[dict[str, str]]]:
    """The Lambda entry: store and webhook are built once, at cold start, from the environment."""
    store, notify = _cold_start()
    failed = deliver(event.get("Records", []), store, notify)
    return {"batchItemFailures": [{"itemIdentifier": number} for number in failed]}


@cache
def _cold_start() -> tuple[Storage, Notify]:
    environ = os.environ
    webhook = Webhook(environ["STALWART_WEBHOOK_URL"], environ["STALWART_WEBHOOK_SECRET"])
    return open_storage(environ["STALWART_STORAGE"]), webhook
