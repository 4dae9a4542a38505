"""Words for people: a pause says what it is about (title, labels, where a value came from) and asks the right
question for its kind; an answer's record names what was decided.  Over a Desk on SQLite, with the shop example
and a small tools file of this test's own."""

import textwrap

import pytest

from stalwart_agents import ConfigError, Desk, tool
from stalwart_agents.approvals.principal import Principal

from .conftest import SHOP

TOOLS = """
from stalwart_agents import OutcomeUnknown, step, tool

PAYMENT = {"order_id": "Order", "amount": "Amount"}


@tool(says=["look up order {order_id}"], label="Look up an order", describe="Look up order {order_id}")
def look_up_order(order_id: str) -> dict:
    notes = "a long story " * 200 if order_id == "9999" else ""
    return {"order_id": order_id, "total": 40, "notes": notes}


@tool(write=True, undo="refund", says=["charge {amount:number} to order {order_id}", "charge order {order_id}"],
      label="Charge a card", describe="Charge {amount} to order {order_id}", labels=PAYMENT)
def charge(order_id: str, amount: int) -> dict:
    return {"charge_id": f"ch-{order_id}"}


@tool(write=True)
def refund(order_id: str, amount: int, result: dict | None = None) -> dict:
    raise RuntimeError("the bank is down")


@tool(write=True, says=["wire {amount:number} to {payee}"], label="Wire money", describe="Wire {amount} to {payee}")
def wire(payee: str, amount: int) -> dict:
    raise OutcomeUnknown("the bank timed out")


@step(says=["settle order {order_id}"])
def settle(run, order_id: str) -> dict:
    order = run.call("look_up_order", order_id=order_id)
    return run.call("charge", order_id=order_id, amount=order["total"])
"""

AGENT = """
settings:
  undo_retries: 0
agents:
  - name: words
    tools: tools.py
    on_unread: ask
"""

TEAM = "https://team.example"
FOUR_EYES = """
agents:
  - name: shop
    tools: tools.py
    approvals:
      charge_card: 2
    approvers:
      - name: finance
        tool: charge_card
        who: '"finance" in who.groups'
"""


@pytest.fixture
def desk(tmp_path):
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "agent.yaml").write_text(AGENT)
    with Desk.from_file(tmp_path / "agent.yaml", storage=f"sqlite:///{tmp_path / 'runs.db'}") as desk:
        yield desk


@pytest.fixture
def shop(tmp_path, ledger):
    with Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'shop.db'}") as desk:
        yield desk


def test_a_confirm_asks_the_described_call_with_its_labels(desk):
    [pause] = desk.send("t", "charge 40 to order 4411").waiting
    shown = pause.to_dict()

    assert (shown["title"], shown["label"], shown["question"]) == (
        "Charge 40 to order 4411",
        "Charge a card",
        "Charge 40 to order 4411?",
    )
    assert [(a["name"], a["label"], a["value"]) for a in shown["arguments"]] == [
        ("amount", "Amount", 40),
        ("order_id", "Order", "4411"),
    ]
    assert desk.waiting("t") == [pause] and desk.waiting("t")[0].to_dict() == shown


def test_a_tools_own_question_wins_and_its_title_still_describes_the_call(shop):
    [pause] = shop.send("u-17", "send the receipt for order 4411").waiting
    assert (pause.question, pause.title) == ("Mail the receipt for this order?", "Mail the receipt for order 4411")


def test_an_ask_says_its_prompt_and_is_titled_by_the_tools_label(desk):
    [ask] = desk.send("t", "charge order 4411").waiting
    assert (ask.kind, ask.question, ask.prompt, ask.title) == (
        "ask",
        "Charge a card: what amount?",
        "Charge a card: what amount?",
        "Charge a card",
    )


def test_outcome_unknown_asks_whether_the_described_call_happened(desk):
    desk.send("t", "wire 5 to ana")
    [pause] = desk.confirm("t", "approve").waiting
    assert (pause.kind, pause.question) == ("outcome_unknown", "Did Wire 5 to ana happen?")


def test_saga_stuck_names_the_call_whose_undo_failed(desk):
    desk.send("t", "charge 40 to order 4411 and charge 50 to order 4412")
    desk.confirm("t", "approve")
    reply = desk.confirm("t", "cancel_all")
    [pause] = reply.waiting
    assert (pause.kind, pause.title) == ("saga_stuck", "Charge 40 to order 4411")
    assert pause.question == "Undoing Charge 40 to order 4411 failed. What should happen?"
    assert pause.question in reply.text


def test_delegate_asks_as_it_did(desk):
    [pause] = desk.send("t", "sing me a song").waiting
    assert (pause.kind, pause.question) == ("delegate", "May the assistant have this turn?")


def test_an_argument_from_an_earlier_result_names_that_call_and_shows_its_value(desk):
    [pause] = desk.send("t", "settle order 4411").waiting
    amount = next(a for a in pause.to_dict()["arguments"] if a["name"] == "amount")

    assert amount["origin"] == "result:1.1" and amount["label"] == "Amount"
    order = {"order_id": "4411", "total": 40, "notes": ""}
    assert amount["source"] == {"tool": "look_up_order", "step": 1, "value": order}
    assert {"name": "amount", "value": 40, "origin": "result:1.1"} in pause.arguments
    assert desk.waiting("t") == [pause] and desk.waiting("t")[0].to_dict() == pause.to_dict()


def test_a_source_over_two_kilobytes_says_it_was_left_out(desk):
    [pause] = desk.send("t", "settle order 9999").waiting
    amount = next(a for a in pause.to_dict()["arguments"] if a["name"] == "amount")
    assert amount["source"] == {"tool": "look_up_order", "step": 1, "truncated": True}


def test_the_answer_in_the_threads_log_carries_the_title_and_its_time(desk):
    [pause] = desk.send("t", "charge 40 to order 4411").waiting
    desk.confirm("t", "approve", waiting=pause.id, token=pause.token, by="ana")

    [answer] = [body for _, body in desk.events("t") if body["type"] == "answer"]
    assert (answer["title"], answer["decision"], answer["by"]) == ("Charge 40 to order 4411", "approve", "ana")
    assert answer["at"].endswith("Z")
    assert desk.history("t")[0]["title"] == "Charge 40 to order 4411"


def test_a_counted_approval_says_the_call_waits_for_another_person(tmp_path, ledger):
    (tmp_path / "tools.py").write_text((SHOP.parent / "tools.py").read_text())
    (tmp_path / "agent.yaml").write_text(FOUR_EYES)
    owner, fiona = Principal(TEAM, "alice", {}), Principal(TEAM, "fiona", {"groups": ["finance"]})
    with Desk.from_file(tmp_path / "agent.yaml", storage=f"sqlite:///{tmp_path / 'runs.db'}") as desk:
        desk.storage.own("t", owner.key)
        [pause] = desk.send("t", "charge 40 to order 4411").waiting
        reply = desk.confirm("t", "approve", waiting=pause.id, token=pause.token, principal=fiona)

    assert reply.status == "waiting" and ledger("charge") == []
    assert "Charge 40.00 EUR to order 4411 waits for another person to approve it too." in reply.text
    assert "waits for your decision" not in reply.text


@pytest.mark.parametrize(
    ("words", "named"),
    [
        ({"describe": "Charge {amont} to order {order_id}"}, "'amont'"),
        ({"labels": {"order": "Order"}}, "'order'"),
        ({"describe": "Charge {amount:.2f}"}, "{amount}"),
    ],
)
def test_a_template_or_label_naming_what_the_tool_does_not_take_is_an_error_naming_both(words, named):
    def charge(order_id: str, amount: int) -> dict:
        return {}

    with pytest.raises(ConfigError) as refused:
        tool(write=True, **words)(charge)
    assert str(refused.value).startswith("charge: ") and named in str(refused.value)


def test_a_template_places_whole_numbers_without_a_point_and_other_values_as_they_read():
    @tool(describe="Pay {amount} to {payee} ({note})")
    def pay(payee: str, amount: float, note: object = None) -> None: ...

    assert pay.title({"payee": "ana", "amount": 40.0, "note": {"why": "rent"}}) == 'Pay 40 to ana ({"why": "rent"})'
    assert pay.title({"payee": "ana", "amount": 40.5}) == "pay"


def test_a_tool_file_with_a_bad_template_fails_to_load_naming_the_tool(tmp_path):
    (tmp_path / "tools.py").write_text(
        textwrap.dedent("""
        from stalwart_agents import tool

        @tool(describe="Look up {order}")
        def look_up_order(order_id: str) -> dict:
            return {}
    """)
    )
    (tmp_path / "agent.yaml").write_text("storage: memory://\nagents:\n  - name: a\n    tools: tools.py\n")
    with pytest.raises(ConfigError, match="look_up_order: describe names 'order'"):
        Desk.from_file(tmp_path / "agent.yaml")


def test_why_a_turn_was_not_read_is_said_with_the_question_and_not_again_after_yes(tmp_path, ledger):
    with Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}") as shop:
        asked = shop.send("t", "what is the total of 4412?")
        assert asked.text == "I couldn't work that out. Shall I pass it to the assistant?"
        passed = shop.confirm("t", "approve")
    assert passed.text.startswith("I read that as look_up_order for order 4412.")
    assert "couldn't work that out" not in passed.text and passed.status == "done"
