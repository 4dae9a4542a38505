"""The fan-out: new pauses, read from the table's stream, posted to the team's webhook and announced on the channels
agent.yaml names (Slack, mail); decided pauses settled there.

Only inserts of pause items, and changes to pause items that are no longer open,
should reach it (the template's FilterCriteria), but it checks again.  Each pause
is read back from the store before it is posted, so one already answered or
already delivered is not announced; each delivery's outcome is written on the
pause, so ``GET /threads/{id}/interrupts`` can say what was not notified.  The
first failed record is reported in ``batchItemFailures``
and nothing after it is posted: the stream retries from there (bounded by the
template) and, past that, the record goes to the dead-letter queue.

Lambda retries a batch whole, so before posting, a delivery is claimed with one
conditional write (``claim_delivery``): a batch delivered twice posts each pause
once.  A claim stands for ``HOLD`` seconds, longer than one post can last; a claim
that another invocation still holds leaves the record for a retry, by which time
that invocation has noted its delivery or died and its claim has lapsed.  Receivers still
dedupe on the delivery id, for the one case no write can settle: a post that
went through from an invocation that died before noting it.

Where the stack has a public URL, each delivery carries signed links, minted
with the key the store keeps, which the links function reads to answer them.

Once a pause is decided (answered, expired, closed), its item changes again: each
channel that posted it is told how it stands (``Channels.settled``: the Slack message
becomes the record of who decided and when).  The record of a pause decided while the
fan-out was posting it comes when the fan-out notes what it posted, so a message is
settled even then.  Settling never fails a batch: a channel that cannot is logged,
and a message settled twice reads the same.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from ..approvals.announce import Notify, announce
from ..engine.pause import Pause
from ..storage import Storage
from ..storage.base import PauseRecord
from .channels import announcing
from .handlers import FunctionEnvironment
from .metrics import Meter, NoMeter
from .observe import Observer, observer_from_environ

__all__ = ["HOLD", "Notify", "deliver", "handler"]

HOLD = 30.0
"""Seconds a delivery's claim stands: past the longest one post lasts (the fan-out's Webhook: 2 attempts of at most
5 s, 0.2 s apart), so a live claim is never taken over and a dead invocation's is soon free."""


def deliver(
    records: Iterable[Mapping[str, Any]],
    store: Storage,
    notify: Notify,
    *,
    meter: Meter | None = None,
    hold: float = HOLD,
    clock: Callable[[], float] = time.time,
    settle: Callable[[PauseRecord], None] | None = None,
) -> list[str]:
    """Post each new pause of ``records`` once, and ``settle`` each decided one; the sequence number of the first
    that failed, if any."""
    meter = meter or NoMeter()
    for record in records:
        if settle is not None and (decided := _decided_pause(record, store)) is not None:
            settle(decided)
            continue
        stored = _new_pause(record, store)
        if stored is None or (stored.delivery or {}).get("delivered") is True:
            continue
        pause = Pause.from_record(stored)
        if not store.claim_delivery(pause.run, pause.id, clock(), hold):
            if _delivered(store, pause):
                continue
            return [record["dynamodb"]["SequenceNumber"]]
        if announce(store, notify, pause) is not None:
            meter.delivery_failed()
            return [record["dynamodb"]["SequenceNumber"]]
    return []


def _new_pause(record: Mapping[str, Any], store: Storage) -> PauseRecord | None:
    """The open pause a stream record inserted, as stored now; None for any other record."""
    keys = record.get("dynamodb", {}).get("Keys", {})
    pk, sk = keys.get("pk", {}).get("S", ""), keys.get("sk", {}).get("S", "")
    if record.get("eventName") != "INSERT" or not (pk.startswith("R#") and sk.startswith("P#")):
        return None
    stored = next((p for p in store.run_pauses(pk[2:]) if p.id == sk[2:]), None)
    return stored if stored is not None and stored.status == "open" else None


def _decided_pause(record: Mapping[str, Any], store: Storage) -> PauseRecord | None:
    """The pause a stream record changed, as stored now, where it is decided (no longer open); None otherwise."""
    keys = record.get("dynamodb", {}).get("Keys", {})
    pk, sk = keys.get("pk", {}).get("S", ""), keys.get("sk", {}).get("S", "")
    if record.get("eventName") != "MODIFY" or not (pk.startswith("R#") and sk.startswith("P#")):
        return None
    stored = next((p for p in store.run_pauses(pk[2:]) if p.id == sk[2:]), None)
    return stored if stored is not None and stored.status != "open" else None


def _delivered(store: Storage, pause: Pause) -> bool:
    """Whether another invocation, whose claim stood, has noted the pause delivered since it was read."""
    stored = store.get_pause(pause.id)
    return stored is not None and (stored.delivery or {}).get("delivered") is True


def handler(event: Mapping[str, Any], context: Any) -> dict[str, list[dict[str, str]]]:
    """The Lambda entry: store, what it posts with and observer are built once, at cold start, from the
    environment."""
    store, notify, observer = _cold_start()
    settle: Callable[[PauseRecord], None] | None = getattr(notify, "settled", None)
    with observer.invocation(event, context):
        failed = deliver(event.get("Records", []), store, notify, meter=observer.meter, settle=settle)
        observer.info("delivered", records=len(event.get("Records", [])), failed=len(failed))
    return {"batchItemFailures": [{"itemIdentifier": number} for number in failed]}


@cache
def _cold_start() -> tuple[Storage, Notify, Observer]:
    """The desk (for the cards, as its rules make them, and the channels agent.yaml names), and what it posts with."""
    environ = os.environ
    observer = observer_from_environ(environ)
    desk = FunctionEnvironment.from_environ(environ).desk(observer.meter)
    notify = announcing(desk, environ)
    if notify is None:
        raise RuntimeError(
            "the fan-out has nowhere to post: set STALWART_WEBHOOK_URL in its environment (the stack's WebhookUrl),"
            " or name channels in agent.yaml"
        )
    return desk.storage, notify, observer
