"""Every error a client can meet has its own code and a fitting HTTP status, carried by its class."""

import importlib
import pkgutil

import httpx

import stalwart_agents
from stalwart_agents import StalwartError
from stalwart_agents.errors import InterruptStale, PauseClosed, StorageConflict, StorageUnavailable
from stalwart_agents.serve import make_app

from .server import serving

SERVICE_FAULTS = {"error", "bad_config", "storage_error", "nondeterministic_step"}
"""The codes that are 500 on purpose: the service (or the team's own code) is wrong, not the request."""


def every_error() -> list[type[StalwartError]]:
    for module in pkgutil.walk_packages(stalwart_agents.__path__, "stalwart_agents."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found, todo = [], [StalwartError]
    while todo:
        kind = todo.pop()
        found.append(kind)
        todo += kind.__subclasses__()
    return found


def test_every_code_is_its_own_and_only_a_service_fault_is_a_500():
    errors = every_error()
    assert len(errors) > 20
    codes = [kind.code for kind in errors]
    assert len(codes) == len(set(codes)), sorted(c for c in codes if codes.count(c) > 1)
    for kind in errors:
        assert 400 <= kind.status < 600
        assert (kind.status == 500) == (kind.code in SERVICE_FAULTS), (kind.__name__, kind.code, kind.status)


def test_a_subclass_inherits_its_parents_status():
    class Late(InterruptStale):
        code = "late"

    assert Late.status == InterruptStale.status == 409
    assert PauseClosed.status == StorageConflict.status == 409 and StorageUnavailable.status == 503


def test_the_service_answers_with_the_status_the_error_carries(desk):
    class Teapot(StalwartError):
        code = "teapot"
        status = 418

    def brew(admitted):
        raise Teapot("short and stout")

    desk.waiting_for = brew
    with serving(make_app(desk)) as base:
        httpx.post(f"{base}/threads/t/messages", json={"text": "look up order 4412"})
        answer = httpx.get(f"{base}/threads/t/interrupts")
    assert (answer.status_code, answer.json()) == (418, {"error": "teapot", "message": "short and stout"})
