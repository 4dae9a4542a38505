"""Tools modules: mistakes are found when the file is loaded, named by file, line and tool."""

import sys
import textwrap

import pytest

from stalwart_agents import ConfigError, Desk, OutcomeUnknown, tool

from .conftest import present


def desk_with(tmp_path, tools_source):
    (tmp_path / "tools.py").write_text(textwrap.dedent(tools_source))
    (tmp_path / "agent.yaml").write_text("storage: memory://\nagents:\n  - name: a\n    tools: tools.py\n")
    return Desk.from_file(tmp_path / "agent.yaml")


def test_the_decorator_keeps_the_function_callable_and_fills_defaults():
    @tool(write=True, says=["pay {amount:number}"])
    def pay(amount: float) -> dict:
        return {"paid": amount}

    assert pay(3) == {"paid": 3}
    assert (pay.name, pay.label, pay.question, pay.write) == ("pay", "pay", "", True)
    assert pay.says == ("pay {amount:number}",)
    assert [p.name for p in pay.parameters] == ["amount"]


def test_irreversible_implies_write():
    @tool(irreversible=True)
    def mail() -> None: ...

    assert mail.write and mail.irreversible


def test_a_slot_no_parameter_takes_is_an_error_naming_file_line_and_tool(tmp_path):
    with pytest.raises(ConfigError) as caught:
        desk_with(
            tmp_path,
            """
            from stalwart_agents import tool

            @tool(says=["look up order {order}"])
            def look_up_order(order_id: str) -> dict:
                return {}
        """,
        )
    error = caught.value
    assert present(error.file).endswith("tools.py") and error.line == 4 and error.key == "look_up_order.says"
    assert "takes no parameter 'order'" in str(error)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("@tool(write=True, undo='nothing')\ndef pay(x: int): ...", "undo names 'nothing'"),
        ("@tool\ndef refund(x: int): ...\n@tool(write=True, undo='refund')\ndef pay(x: int): ...", "must take result="),
        (
            "@tool\ndef refund(y: int, result=None): ...\n@tool(write=True, undo='refund')\ndef pay(x: int): ...",
            "needs y",
        ),
        ("@tool(says=['pay {x'])\ndef pay(x: int): ...", "pay {x"),
        ("@tool(write=True, editable=['amount'])\ndef pay(x: int): ...", "editable names 'amount', which is not a"),
        ("@tool(write=True, editable=['result'])\ndef pay(x: int, result=None): ...", "its parameters: x"),
        ("x = 1", "declares no @tool functions"),
        ("import nowhere_to_be_found", "failed to import: ModuleNotFoundError"),
    ],
)
def test_tools_module_mistakes_are_config_errors(tmp_path, source, message):
    with pytest.raises(ConfigError, match=message.replace("{", r"\{").replace("(", r"\(")):
        desk_with(tmp_path, "from stalwart_agents import tool\n" + source)


def test_an_outcome_unknown_write_asks_whether_it_happened(tmp_path):
    desk = desk_with(
        tmp_path,
        """
        from stalwart_agents import tool, OutcomeUnknown

        @tool(write=True, says=["pay {amount:number}"])
        def pay(amount: int) -> dict:
            raise OutcomeUnknown("the bank did not answer")
    """,
    )
    desk.send("t", "pay 5")
    reply = desk.confirm("t", "approve")
    [pause] = reply.waiting
    assert pause.kind == "outcome_unknown" and pause.answers == ["happened", "did_not_happen"]
    assert pause.reasons == ["outcome_unknown: OutcomeUnknown: the bank did not answer"]


def test_context_fills_parameters_and_an_untrusted_origin_is_a_reason(tmp_path):
    (tmp_path / "tools.py").write_text(
        textwrap.dedent("""
        from stalwart_agents import tool

        @tool(write=True, says=["pay {amount:number}"])
        def pay(amount: int, customer: str) -> dict:
            return {"paid": amount, "by": customer}
    """)
    )
    (tmp_path / "agent.yaml").write_text(
        textwrap.dedent("""
        storage: memory://
        agents:
          - name: a
            tools: tools.py
            check:
              trusted_origins: [typed, reply]
    """)
    )
    desk = Desk.from_file(tmp_path / "agent.yaml")
    [pause] = desk.send("t", "pay 5", context={"customer": "c-208"}).waiting
    assert {"name": "customer", "value": "c-208", "origin": "context"} in pause.arguments
    assert pause.reasons == ["write", "argument_origin: customer"]
    assert desk.confirm("t", "approve").steps[-1].result == {"paid": 5, "by": "c-208"}


def test_outcome_unknown_is_an_exception_tools_can_raise():
    assert issubclass(OutcomeUnknown, Exception)


def test_an_undo_written_with_keyword_arguments_loads_and_receives_the_call_and_its_result(tmp_path):
    desk = desk_with(
        tmp_path,
        """
        from stalwart_agents import tool

        UNDONE = []

        @tool(write=True)
        def reverse_transfer(**call):
            UNDONE.append(call)
            return {"reversed": call["result"]["transfer"]}

        @tool(write=True, undo="reverse_transfer", says=["transfer {amount:number} to {payee}"])
        def transfer(payee: str, amount: int) -> dict:
            return {"transfer": f"tr-{payee}-{amount}"}
    """,
    )
    desk.send("t", "transfer 5 to ana")
    desk.confirm("t", "approve")
    reply = desk.rollback("t")

    tools = sys.modules[desk.agents["a"].tools["transfer"].fn.__module__]
    assert tools.UNDONE == [{"payee": "ana", "amount": 5, "result": {"transfer": "tr-ana-5"}}]
    assert [(line["tool"], line["by"]) for line in reply.rollback["undone"]] == [("transfer", "tool")]
