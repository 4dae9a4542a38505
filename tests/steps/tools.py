"""Tools and steps for the step tests; CALLS (steps_calls.py) records every call a tool really made."""

from steps_calls import CALLS

from stalwart_agents import step, tool


@tool(says=["look up order {order_id}"])
def look_up_order(order_id: str) -> dict:
    CALLS.append(("look_up_order", {"order_id": order_id}))
    return {"order_id": order_id, "total": 40, "customer": "c-208"}


@tool(write=True, undo="refund", editable=["amount"])
def charge(order_id: str, amount: int) -> dict:
    CALLS.append(("charge", {"order_id": order_id, "amount": amount}))
    return {"charge_id": f"ch-{order_id}"}


@tool(write=True)
def refund(order_id: str, amount: int, result: dict | None = None) -> dict:
    CALLS.append(("refund", {"order_id": order_id, "amount": amount}))
    return {"refunded": amount}


@tool(write=True)
def mail(order_id: str, to: str) -> dict:
    CALLS.append(("mail", {"order_id": order_id, "to": to}))
    return {"mailed": to}


@step(says=["settle order {order_id}"])
def settle(run, order_id: str) -> dict:
    order = run.call("look_up_order", order_id=order_id)
    charged, mailed = run.together(
        run.later("charge", order_id=order_id, amount=order["total"]),
        run.later("mail", order_id=order_id, to=order["customer"]),
    )
    return {"charged": charged, "mailed": mailed}


@step(says=["hand order {order_id} to quick"])
def hand_over(run, order_id: str) -> dict:
    return run.call("quick:charge", order_id=order_id, amount=5)


@step(says=["charge then mail order {order_id}"])
def charge_then_mail(run, order_id: str) -> dict:
    charged = run.call("charge", order_id=order_id, amount=40)
    return {"charged": charged, "mailed": run.call("mail", order_id=order_id, to="c-208")}
