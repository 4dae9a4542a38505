"""Tools whose failures a test arranges: FAIL[name] is a list of exceptions (or None) raised in turn; a tool named
in SPOIL changes each dict it is given, in place, after it is recorded.

Every call is appended to CALLS, and, when STALWART_BANK_LEDGER names a file,
to that file as well, so a test can count what really happened in another process.
"""

from __future__ import annotations

import copy
import json
import os
import time

from stalwart_agents import tool

CALLS: list[tuple[str, dict]] = []
FAIL: dict[str, list[BaseException | None]] = {}
SPOIL: set[str] = set()


def act(name: str, **arguments: object) -> None:
    CALLS.append((name, copy.deepcopy(arguments)))
    if name in SPOIL:
        for value in arguments.values():
            if isinstance(value, dict):
                value["spoiled"] = True
    ledger = os.environ.get("STALWART_BANK_LEDGER")
    if ledger:
        with open(ledger, "a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": name, **arguments}) + "\n")
            out.flush()
            os.fsync(out.fileno())
    hang = os.environ.get("STALWART_BANK_HANG")
    if hang == name:
        time.sleep(3600)
    queue = FAIL.get(name)
    if queue:
        failure = queue.pop(0)
        if failure is not None:
            raise failure


@tool(write=True, undo="refund", says=["pay {amount:number} to {payee}"])
def pay(payee: str, amount: int) -> dict:
    act("pay", payee=payee, amount=amount)
    return {"payment": f"pm-{payee}-{amount}"}


@tool(write=True)
def refund(payee: str, amount: int, result: dict | None = None) -> dict:
    act("refund", payee=payee, amount=amount, result=result)
    return {"refunded": amount}


@tool(write=True, idempotent=True, undo="refund", says=["transfer {amount:number} to {payee}"])
def transfer(payee: str, amount: int, idempotency_key: str) -> dict:
    act("transfer", payee=payee, amount=amount, key=idempotency_key)
    return {"transfer": idempotency_key}


@tool(write=True, irreversible=True, says=["mail {payee}"])
def mail(payee: str) -> dict:
    act("mail", payee=payee)
    return {"mailed": payee}


@tool(write=True, says=["note {text:text}"])
def note(text: str) -> dict:
    act("note", text=text)
    return {"noted": text}


@tool(says=["balance of {payee}"])
def balance(payee: str) -> dict:
    act("balance", payee=payee)
    return {"payee": payee, "balance": 100}


@tool(write=True, says=["slow pay {amount:number} to {payee}"], undo="refund")
def slow_pay(payee: str, amount: int) -> dict:
    act("slow_pay", payee=payee, amount=amount)
    time.sleep(float(os.environ.get("STALWART_BANK_SLOW", "1")))
    return {"payment": f"slow-{payee}-{amount}"}
