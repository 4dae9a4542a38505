"""The shop's two tools for benchmarks: every order id names an unpaid order."""

from __future__ import annotations

from stalwart_agents import tool


def order(order_id: str) -> dict:
    return {"order_id": order_id, "customer": "c-208", "card": "visa-0019", "status": "unpaid", "total": "40.00"}


@tool(says=["look up order {order_id}"], label="Look up an order", describe="Look up order {order_id}")
def look_up_order(order_id: str) -> dict:
    return order(order_id)


@tool(
    write=True,
    says=["charge {amount:number} (to|for|on) order {order_id}"],
    label="Charge a card",
    describe="Charge {amount} to order {order_id}",
)
def charge_card(order_id: str, amount: float) -> dict:
    return {"amount": str(amount), "charge_id": f"ch-{order_id}", "order_id": order_id}
