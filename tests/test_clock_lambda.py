"""The clock as deployed: ClockFunction, cold-started with the environment template.yaml gives it and invoked with
the event EventBridge's schedule hands it, against DynamoDB (moto's server over HTTP), keeps a pause's deadline:
a due reminder is posted once to the stack's webhook, a pause past its deadline is expired once, however often the
schedule runs it; and every request it sends is one its role allows, the role allowing nothing it does not send."""

import json
import time
from datetime import datetime

import pytest
import yaml

from .conftest import SHOP
from .test_lambda import (
    LOCAL_ONLY,
    PUBLIC_URL,
    SCHEDULED,
    TABLE_ARN,
    Deployed,
    iam_requests,
    paused,
    receiver,  # noqa: F401 (a fixture)
    secrets,  # noqa: F401 (a fixture)
    stack,  # noqa: F401 (a fixture)
    storage_url,  # noqa: F401 (a fixture)
    template,  # noqa: F401 (a fixture)
    waiting,
)
from .test_template import as_list, clock, statements

REMIND, EXPIRES = 1.0, 4.0
"""Seconds after a charge's pause opens that its reminder is due, and that it expires."""
NOTHING: dict[str, list[str]] = {"expired": [], "escalated": [], "reminded": [], "failed": [], "answered_first": []}
"""What a tick that found nothing to do returns."""


def with_deadline(tmp_path, deadline):
    """The shop's agent.yaml (its tools where they are), its charges given ``deadline``."""
    config = yaml.safe_load(SHOP.read_text())
    agent = config["agents"][0]
    agent["tools"] = str(SHOP.parent / "tools.py")
    agent["deadlines"] = [{"tool": "charge_card", "kind": "confirm", **deadline}]
    path = tmp_path / "agent.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture
def deadline(tmp_path):
    """The shop, its charges reminded of after ``REMIND`` seconds and expired after ``EXPIRES``."""
    return with_deadline(tmp_path, {"expires": f"{EXPIRES:g}s", "remind": [f"{REMIND:g}s"]})


def sleep_until(moment):
    time.sleep(max(0.0, moment - time.time()))


def expires_at(pause):
    return datetime.fromisoformat(pause["expires_at"]).timestamp()


def sent_to_iam(deployed, name):
    """(action, resource) of every request the function sent, as IAM checks it; the store's setup as it is on AWS,
    where it checks the table with a GetItem in K# (here, DynamoDB running locally, it describes the table)."""
    sent = {
        (action, json.dumps(resource, sort_keys=True))
        for service, operation, params in deployed.requests[name]
        if operation not in LOCAL_ONLY
        for action, resource, _ in iam_requests(service, operation, params)
    }
    set_up = [operation for _, operation, _ in deployed.requests[name] if operation == "DescribeTable"]
    return sent | ({("dynamodb:GetItem", json.dumps(TABLE_ARN))} if set_up else set())


def granted(stack_template, name, parameters):
    """(action, resource) of every grant of the function's role but its logs', traces' and KMS's."""
    return {
        (action, json.dumps(statement["Resource"], sort_keys=True))
        for statement in statements(stack_template, name, parameters)
        for action in as_list(statement["Action"])
        if not action.startswith(("logs:", "xray:", "kms:"))
    }


def test_the_clock_reminds_once_and_expires_once(template, stack, storage_url, monkeypatch, receiver, ledger, deadline):  # noqa: F811
    """However often the schedule runs it: again at once, as Lambda's retry or an overlapping tick would."""
    parameters = stack | {"WebhookUrl": receiver.url, "PublicUrl": PUBLIC_URL}
    deployed = Deployed(template, parameters, storage_url, monkeypatch, config=deadline)
    name = clock(template)
    pause = paused(deployed, "u-17")
    opened = expires_at(pause) - EXPIRES
    assert deployed.invoke(name, SCHEDULED) == NOTHING  # nothing is due yet

    sleep_until(opened + REMIND + 0.1)
    assert deployed.invoke(name, SCHEDULED) == NOTHING | {"reminded": [pause["id"]]}
    assert deployed.invoke(name, SCHEDULED) == NOTHING  # the schedule again, or Lambda's retry: posted once
    [reminder] = receiver.got  # signed with the secret Secrets Manager holds: the receiver checked it
    assert (reminder["reminder"], reminder["interrupt"]["id"]) == (1, pause["id"])
    assert all(url.startswith(f"{PUBLIC_URL}/links/") for url in reminder["links"].values())  # minted afresh
    assert waiting(deployed, "u-17") == [pause] and ledger() == []

    sleep_until(opened + EXPIRES + 0.1)
    assert deployed.invoke(name, SCHEDULED) == NOTHING | {"expired": [pause["id"]]}
    assert deployed.invoke(name, SCHEDULED) == NOTHING
    assert waiting(deployed, "u-17") == [] and ledger("charge") == []  # skipped, as on_expiry says: never charged
    assert len(receiver.got) == 1  # an expiry is no reminder

    # every request it sent is one its role allows, and its role allows what it sent and nothing more
    assert deployed.refused_by_iam() == []
    assert sent_to_iam(deployed, name) == granted(template, name, parameters) - {
        # each secret may be either kind of ARN, and is read by the one call its kind takes
        ("ssm:GetParameter", json.dumps(parameters["WebhookSecretArn"])),
        ("secretsmanager:GetSecretValue", json.dumps(parameters["ModelKeyArn"])),
    }
    reads = [op for service, op, _ in deployed.requests[name] if service in ("secretsmanager", "ssm")]
    assert sorted(reads) == ["GetParameter", "GetSecretValue"]  # the model key and the webhook's, once each
    queried = {params.get("IndexName") for op, params in deployed.sent(name) if op == "Query"}
    assert queried == {"wake", None} and "Scan" not in {op for op, _ in deployed.sent(name)}


def test_without_a_webhook_the_clock_still_expires(template, stack, storage_url, monkeypatch, ledger, tmp_path):  # noqa: F811
    """And reads no webhook secret: the stack has none to give it."""
    config = with_deadline(tmp_path, {"expires": "1s", "remind": ["0.5s"]})
    deployed = Deployed(template, stack, storage_url, monkeypatch, config=config)
    name = clock(template)
    pause = paused(deployed, "u-17")
    sleep_until(expires_at(pause) + 0.1)
    # the reminder passed over: the latest due event stands for them all
    assert deployed.invoke(name, SCHEDULED) == NOTHING | {"expired": [pause["id"]]}
    assert deployed.invoke(name, SCHEDULED) == NOTHING
    assert waiting(deployed, "u-17") == [] and ledger("charge") == []
    assert [op for service, op, _ in deployed.requests[name] if service == "secretsmanager"] == []
    assert deployed.refused_by_iam() == []


def test_a_burst_of_deadlines_is_drained_in_one_invocation_while_time_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tick does at most BATCH events: the handler ticks again while a tick came back full and a minute is left."""
    from stalwart_agents.approvals.overdue import BATCH, Ticked
    from stalwart_agents.aws import clock
    from stalwart_agents.aws.observe import observer_from_environ

    due = [f"p{n}" for n in range(2 * BATCH + 7)]

    def tick(desk: object, notify: object) -> Ticked:
        taken, due[:] = due[:BATCH], due[BATCH:]
        return Ticked(expired=taken)

    class Context:
        def __init__(self, left: int) -> None:
            self.left = left

        def get_remaining_time_in_millis(self) -> int:
            return self.left

    monkeypatch.setattr(clock, "tick", tick)
    monkeypatch.setattr(clock, "_cold_start", lambda: (None, None, observer_from_environ({})))
    assert len(clock.handler({}, Context(240_000))["expired"]) == 2 * BATCH + 7
    due[:] = [f"q{n}" for n in range(3 * BATCH)]
    assert len(clock.handler({}, Context(30_000))["expired"]) == BATCH  # under a minute left: one tick, no more
