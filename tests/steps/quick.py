"""A second agent's tools: writes run without asking, except charges; and a step that is not deterministic."""

from steps_calls import CALLS

from stalwart_agents import step, tool

TIMES = {"replayed": 0}


@tool(write=True)
def charge(order_id: str, amount: int) -> dict:
    CALLS.append(("quick:charge", {"order_id": order_id, "amount": amount}))
    return {"charge_id": f"q-{order_id}"}


@tool(write=True)
def mail(order_id: str, to: str) -> dict:
    CALLS.append(("quick:mail", {"order_id": order_id, "to": to}))
    return {"mailed": to}


@step(says=["wobble order {order_id}"])
def wobble(run, order_id: str) -> dict:
    TIMES["replayed"] += 1
    run.call("mail", order_id=order_id, to=f"c-{TIMES['replayed']}")
    return run.call("charge", order_id=order_id, amount=5)
