"""Deadlines (``deadlines:``, an approver rule's ``deadline:``): a pause nobody answers ends safely, reminds and
escalates, over a Desk with an injected clock; every store runs the same rules (tests/storage/test_wake.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from stalwart_agents import ConfigError, Desk, InterruptStale, NotFound, Pause, PauseExpired
from stalwart_agents.approvals.overdue import tick
from stalwart_agents.approvals.principal import Principal
from stalwart_agents.errors import NotAnApprover
from stalwart_agents.storage import Storage, open_storage

from .conftest import ROOT
from .test_approvers import ALICE, MALLORY, TEAM, shop

HOUR = 3600.0
START = 1_800_000_000.0
BOSS = Principal(TEAM, "bea", {"groups": ["managers"]})

CHARGES_WAIT_FOUR_HOURS = """
    deadlines:
      - tool: charge_card
        expires: 4h
        remind: [1h, 3h]
        escalate: {after: 2h, to: '"managers" in who.groups', label: the managers}
"""


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now

    def later(self, seconds: float) -> float:
        self.now += seconds
        return self.now


class Told:
    """``on_interrupt``: every pause announced, as it was told."""

    def __init__(self) -> None:
        self.pauses: list[Pause] = []

    def __call__(self, thread: str, pause: Pause) -> None:
        self.pauses.append(pause)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def storage(each_store: Storage) -> Storage:
    return each_store


def desk_for(store: Storage, tmp_path: Path, agent: str, clock: Clock, told: Any = None) -> Desk:
    """A worker on ``store``, its clock ``clock``: the shop's tools with ``agent`` (the deadlines under test)."""
    return Desk.from_file(shop(tmp_path, agent), storage=store, clock=clock, on_interrupt=told)


def charge(desk: Desk, thread: str = "t-1", amount: int = 40, owner: Principal = ALICE) -> Pause:
    desk.storage.own(thread, owner.key)
    [pause] = desk.send(thread, f"charge {amount} to order 4411").waiting
    return pause


def test_a_pause_carries_its_deadline_and_what_then(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    desk = desk_for(storage, tmp_path, CHARGES_WAIT_FOUR_HOURS, clock)
    shown = charge(desk).to_dict()
    assert shown["expires_at"] == "2027-01-15T12:00:00.000Z"
    assert shown["on_expiry"] == "skip"
    assert shown["escalation"] == {"at": "2027-01-15T10:00:00.000Z", "done": False, "to": "the managers"}
    assert "deadline" not in shown  # the kept schedule, with its who condition, is never shown


def test_at_its_deadline_the_clock_ends_a_confirm_as_expired_and_the_call_never_runs(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    desk = desk_for(storage, tmp_path, "deadlines: [{tool: charge_card, expires: 30m}]", clock)
    pause = charge(desk)
    clock.later(29 * 60)
    assert tick(desk).expired == []
    clock.later(60)
    assert tick(desk).expired == [pause.id]
    assert tick(desk).expired == []  # answered once
    assert desk.waiting("t-1") == []
    assert ledger("charge") == []
    [answer] = [e for e in desk.history("t-1") if e.get("decision") == "expired"]
    assert (answer["by"], answer["channel"], answer["principal"]) == (
        "clock",
        "clock",
        {"iss": "stalwart:clock", "sub": "deadline"},
    )
    run = desk.storage.last_run("t-1")
    assert run is not None and run.status == "done"


def test_the_agent_says_it_timed_out_not_that_the_person_said_no(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    desk = desk_for(storage, tmp_path, "deadlines: [{tool: charge_card, expires: 30m}]", clock)
    pause = charge(desk)
    clock.later(HOUR)
    reply = desk.expire(pause)
    assert [(s.tool, s.status) for s in reply.steps] == [("charge_card", "expired")]
    assert "in time" in reply.text and "as you asked" not in reply.text


def test_a_late_approval_is_refused_as_expired_and_ends_the_pause_as_the_clock_would(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    desk = desk_for(storage, tmp_path, "deadlines: [{tool: charge_card, expires: 30m}]", clock)
    pause = charge(desk)
    clock.later(31 * 60)  # the clock has not ticked: the answer finds the deadline passed itself
    with pytest.raises(PauseExpired) as refused:
        desk.confirm("t-1", "approve", pause, token=pause.token, principal=ALICE)
    assert "expired at 2027-01-15T08:30:00.000Z" in refused.value.message
    assert refused.value.status == 410
    assert ledger("charge") == []
    assert tick(desk).answered_first == [] and desk.waiting("t-1") == []
    with pytest.raises(PauseExpired):  # and so is every answer after it
        desk.confirm("t-1", "approve", pause, token=pause.token, principal=ALICE)
    outcomes = [(e.get("decision"), e["outcome"], e.get("error")) for e in desk.history("t-1")]
    assert outcomes == [
        ("expired", "taken", None),
        ("approve", "refused", "pause_expired"),
        ("approve", "refused", "pause_expired"),
    ]


def test_on_expiry_cancel_all_undoes_the_run(storage: Storage, tmp_path: Path, clock: Clock, ledger: Any) -> None:
    desk = desk_for(storage, tmp_path, "deadlines: [{tool: charge_card, expires: 30m, on_expiry: cancel_all}]", clock)
    pause = charge(desk)
    assert pause.to_dict()["on_expiry"] == "cancel_all"
    clock.later(HOUR)
    reply = desk.expire(pause)
    assert reply.status == "cancelled"
    assert [s.status for s in reply.steps] == ["expired"]


def test_an_approval_in_time_runs_and_the_clock_then_has_nothing_to_do(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    desk = desk_for(storage, tmp_path, CHARGES_WAIT_FOUR_HOURS, clock)
    pause = charge(desk)
    clock.later(HOUR - 1)
    desk.confirm("t-1", "approve", pause, token=pause.token, principal=ALICE)
    clock.later(10 * HOUR)
    assert tick(desk) == tick(desk)  # both empty
    assert desk.storage.due_pauses(clock.now) == []
    assert len(ledger("charge")) == 1


def test_reminders_are_sent_once_each_with_their_number(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    told = Told()
    desk = desk_for(storage, tmp_path, CHARGES_WAIT_FOUR_HOURS, clock, told)
    other = desk_for(storage, tmp_path, CHARGES_WAIT_FOUR_HOURS, clock, told)  # a second worker on the same store
    pause = charge(desk)
    assert [p.reminders for p in told.pauses] == [0]
    clock.later(HOUR)
    assert tick(desk).reminded == [pause.id]
    assert tick(other).reminded == []
    clock.later(HOUR)
    assert tick(other).escalated == [pause.id]
    clock.later(HOUR)
    assert tick(other).reminded == [pause.id] and tick(desk).reminded == []
    assert [(p.reminders, p.escalated) for p in told.pauses] == [(0, False), (1, False), (1, True), (2, True)]


def test_a_reminder_a_receiver_refused_is_tried_again_and_never_lost(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    told, down = Told(), {"now": True}

    def flaky(thread: str, pause: Pause) -> None:
        if down["now"] and pause.reminders:
            raise ConnectionError("the receiver is down")
        told(thread, pause)

    desk = desk_for(storage, tmp_path, "deadlines: [{tool: charge_card, expires: 4h, remind: 1h}]", clock, flaky)
    pause = charge(desk)
    clock.later(HOUR)
    assert tick(desk).failed == [pause.id]
    clock.later(30)
    assert tick(desk).reminded == []  # not before its retry
    down["now"] = False
    clock.later(60)
    assert tick(desk).reminded == [pause.id]
    assert [p.reminders for p in told.pauses] == [0, 1]


def test_escalation_lets_the_wider_group_answer_and_no_one_else(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    desk = desk_for(storage, tmp_path, CHARGES_WAIT_FOUR_HOURS, clock)
    pause = charge(desk)
    with pytest.raises(NotFound):
        desk.admit("t-1", BOSS)
    assert desk.inbox(BOSS).waiting == []
    with pytest.raises(NotAnApprover):
        desk.confirm("t-1", "approve", pause, token=pause.token, principal=BOSS)
    clock.later(2 * HOUR)
    tick(desk)
    [shown] = desk.waiting_for(desk.admit("t-1", BOSS))
    assert shown.escalated and shown.to_dict()["escalation"] == {
        "at": "2027-01-15T10:00:00.000Z",
        "done": True,
        "to": "the managers",
    }
    assert [p.id for p in desk.inbox(BOSS).waiting] == [pause.id]
    assert desk.inbox(MALLORY).waiting == []
    with pytest.raises(NotAnApprover):
        desk.confirm("t-1", "approve", pause, token=pause.token, principal=MALLORY)
    desk.confirm("t-1", "approve", pause, token=pause.token, principal=BOSS)
    assert len(ledger("charge")) == 1


def test_an_approver_rule_sets_the_timing_of_the_pauses_it_governs(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    agent = """
        deadlines: [{tool: charge_card, expires: 1h}]
        approvers:
          - name: finance-large
            tool: charge_card
            when: "args.amount > 1000"
            who: '"finance" in who.groups'
            deadline: {expires: 8h, on_expiry: cancel_all}
    """
    desk = desk_for(storage, tmp_path, agent, clock)
    small = charge(desk, "t-small", 40).to_dict()
    large = charge(desk, "t-large", 4000).to_dict()
    assert (small["expires_at"], small["on_expiry"]) == ("2027-01-15T09:00:00.000Z", "skip")
    assert (large["expires_at"], large["on_expiry"]) == ("2027-01-15T16:00:00.000Z", "cancel_all")


def test_a_deadline_can_depend_on_the_call(storage: Storage, tmp_path: Path, clock: Clock, ledger: Any) -> None:
    agent = """deadlines: [{tool: charge_card, expires: "args.amount > 100 ? '8h' : '1h'"}]"""
    desk = desk_for(storage, tmp_path, agent, clock)
    assert charge(desk, "t-small", 40).to_dict()["expires_at"] == "2027-01-15T09:00:00.000Z"
    assert charge(desk, "t-large", 400).to_dict()["expires_at"] == "2027-01-15T16:00:00.000Z"


def test_a_deadline_that_cannot_be_read_fails_closed(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any, caplog: Any
) -> None:
    desk = desk_for(
        storage, tmp_path, """deadlines: [{tool: charge_card, expires: "args.amount > 100 ? 8 : 'soon'"}]""", clock
    )
    pause = charge(desk, amount=40)
    assert pause.to_dict()["expires_at"] == "2027-01-15T08:00:00.000Z"
    assert "not a duration" in caplog.text
    assert tick(desk).expired == [pause.id] and ledger("charge") == []


WIRE = """
from stalwart_agents import OutcomeUnknown, tool


@tool(write=True, says=["wire {amount:number} to {payee}"])
def wire(payee: str, amount: int) -> dict:
    raise OutcomeUnknown("the bank timed out")
"""


def test_an_outcome_unknown_is_never_decided_by_the_clock_it_escalates(
    storage: Storage, tmp_path: Path, clock: Clock
) -> None:
    (tmp_path / "tools.py").write_text(WIRE)
    (tmp_path / "agent.yaml").write_text(
        "agents:\n  - name: bank\n    tools: tools.py\n    deadlines:\n      - tool: wire\n        expires: 30m\n"
        "        escalate: {after: 2h, to: '\"managers\" in who.groups', label: the managers}\n"
    )
    told = Told()
    desk = Desk.from_file(
        tmp_path / "agent.yaml", storage=f"sqlite:///{tmp_path / 'runs.db'}", clock=clock, on_interrupt=told
    )
    desk.storage.own("t-1", ALICE.key)
    [confirm] = desk.send("t-1", "wire 5 to bob").waiting
    [unknown] = desk.confirm("t-1", "approve", confirm, token=confirm.token, principal=ALICE).waiting
    assert unknown.kind == "outcome_unknown"
    shown = unknown.to_dict()
    assert "expires_at" not in shown and "on_expiry" not in shown
    assert shown["escalation"] == {"at": "2027-01-15T08:30:00.000Z", "done": False, "to": "the managers"}
    clock.later(10 * HOUR)
    ticked = tick(desk)
    assert (ticked.escalated, ticked.expired) == ([unknown.id], [])
    assert tick(desk) == tick(desk)  # nothing more to do: it waits for a person
    [waiting] = desk.waiting("t-1")
    assert waiting.id == unknown.id and waiting.escalated
    assert told.pauses[-1].escalated
    desk.confirm("t-1", "happened", waiting, token=waiting.token, principal=BOSS)
    assert desk.waiting("t-1") == []


def test_agent_yaml_names_what_is_wrong_with_a_deadline(tmp_path: Path, clock: Clock) -> None:
    with pytest.raises(ConfigError) as wrong:
        desk_for(
            open_storage("memory://"),
            tmp_path,
            "deadlines: [{tool: charge_card, expires: 4 hours, remind: [0s]}]",
            clock,
        )
    said = str(wrong.value)
    assert "agents[0].deadlines[0].expires: '4 hours' is not a duration" in said
    assert "agents[0].deadlines[0].remind" in said


def test_a_stale_answer_after_the_expiry_is_told_it_expired(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    desk = desk_for(storage, tmp_path, "deadlines: [{tool: charge_card, expires: 30m}]", clock)
    pause = charge(desk)
    clock.later(HOUR)
    tick(desk)
    with pytest.raises(PauseExpired):
        desk.confirm("t-1", "approve", pause, token=pause.token, principal=ALICE)
    with pytest.raises(InterruptStale):
        desk.expire(pause)


@pytest.mark.parametrize(
    ("document", "heading"), [("docs/approvals.md", "## Deadlines"), ("README.md", "### Deadlines")]
)
def test_the_documented_deadlines_load(tmp_path: Path, clock: Clock, document: str, heading: str) -> None:
    text = (ROOT / document).read_text()
    block = text[text.index(heading) :].split("```yaml\n", 1)[1].split("```", 1)[0]
    desk = desk_for(open_storage("memory://"), tmp_path, textwrap.dedent(block), clock)
    assert desk.agent("shop").deadlines.entries[0].tool == ("charge_card",)


def test_an_ask_nobody_answers_in_time_leaves_the_call_unmade(
    storage: Storage, tmp_path: Path, clock: Clock, ledger: Any
) -> None:
    desk = desk_for(storage, tmp_path, "deadlines: [{kind: ask, expires: 10m}]", clock)
    desk.storage.own("t-1", ALICE.key)
    [asked] = desk.send("t-1", "charge order 4411").waiting
    assert asked.kind == "ask" and asked.to_dict()["expires_at"] == "2027-01-15T08:10:00.000Z"
    clock.later(600)
    reply = desk.expire(asked)
    assert [(s.tool, s.status) for s in reply.steps] == [("charge_card", "expired")]
    assert reply.status == "done" and ledger("charge") == []


def test_a_delegate_nobody_answers_in_time_is_not_passed_on(storage: Storage, tmp_path: Path, clock: Clock) -> None:
    desk = desk_for(storage, tmp_path, "on_unread: ask\ndeadlines: [{kind: delegate, expires: 10m}]", clock)
    desk.storage.own("t-1", ALICE.key)
    [offered] = desk.send("t-1", "what is the weather like").waiting
    assert offered.kind == "delegate"
    clock.later(600)
    reply = desk.expire(offered)
    assert "Nobody answered in time, so I won't pass it on." in reply.text and reply.waiting == []
