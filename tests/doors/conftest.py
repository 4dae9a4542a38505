"""Both doors behind the one HTTP layer: ``stalwart serve``'s Desk over the shop, and the LangGraph door over the
chat graph of ``tests/langgraph_shop.py``, each served by real uvicorn with people signed in by HS256 tokens and
its pauses posted to a webhook receiver with signed links.  Every test of this folder runs over both, as
``tests/storage`` runs over every backend."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx
import jwt
import pytest

from stalwart_agents import Desk, Webhook
from stalwart_agents.approvals.principal import Principal
from stalwart_agents.door import Door
from stalwart_agents.http.app import door_app
from stalwart_agents.http.auth import SharedSecret

from ..conftest import SHOP
from ..server import Later, Receiver, receiving, serving

TEAM, AUDIENCE = "https://team.example", "stalwart-shop"
SECRET = "a-team-secret-of-at-least-32-bytes!"
HOOK_SECRET = "whsec-doors"
OPERATOR = "op-token-for-doors"
ALICE = Principal(TEAM, "alice", {"email": "alice@shop.example"})
BOB = Principal(TEAM, "bob", {"email": "bob@shop.example"})


@dataclass
class Served:
    """One door, served: where, what a person types to have a card charged, and the charges really made."""

    name: str
    base: str
    charge: str
    charges: Callable[[], list[str]]
    receiver: Receiver
    client: httpx.Client

    def as_(self, who: Principal | None) -> dict[str, str]:
        if who is None:
            return {}
        claims = {"iss": TEAM, "aud": AUDIENCE, "sub": who.subject, "exp": int(time.time()) + 300, **who.claims}
        return {"Authorization": f"Bearer {jwt.encode(claims, SECRET, algorithm='HS256')}"}

    def say(self, who: Principal | None, thread: str, text: str | None = None) -> httpx.Response:
        body = {"text": text or self.charge}
        return self.client.post(f"/threads/{thread}/messages", json=body, headers=self.as_(who))

    def waiting(self, who: Principal | None, thread: str) -> httpx.Response:
        return self.client.get(f"/threads/{thread}/interrupts", headers=self.as_(who))

    def answer(
        self, who: Principal | None, thread: str, pause: dict, decision: str = "approve", token: str | None = None
    ) -> httpx.Response:
        body = {"interrupt_id": pause["id"], "decision": decision, "token": token or pause["token"]}
        return self.client.post(f"/threads/{thread}/resume", json=body, headers=self.as_(who))


def desk_door(tmp_path, ledger) -> Iterator[tuple[Door, str, Callable[[], list[str]]]]:
    with Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}") as desk:
        yield desk, "charge 40 to order 4411", lambda: ledger("charge")


def graph_door(tmp_path, monkeypatch) -> Iterator[tuple[Door, str, Callable[[], list[str]]]]:
    pytest.importorskip("langgraph")
    from stalwart_agents.langchain.server import GraphDoor

    from ..langgraph_shop import build_chat_graph, sqlite_saver

    path = tmp_path / "graph-ledger.jsonl"
    monkeypatch.setenv("LANGGRAPH_LEDGER", str(path))
    graph = build_chat_graph(sqlite_saver(str(tmp_path / "checkpoints.db")))
    door = GraphDoor(graph, storage=f"sqlite:///{tmp_path / 'runs.db'}")
    yield door, "charge order 4411", lambda: path.read_text().splitlines() if path.exists() else []
    door.storage.close()


@pytest.fixture(params=["desk", "langgraph"])
def served(request, tmp_path, monkeypatch, ledger) -> Iterator[Served]:
    """A door under the one HTTP layer, at its own address as its public URL (so its links are followed there)."""
    made = desk_door(tmp_path, ledger) if request.param == "desk" else graph_door(tmp_path, monkeypatch)
    door, charge, charges = next(made)
    later = Later()
    with receiving(HOOK_SECRET) as receiver, serving(later) as base, httpx.Client(base_url=base, timeout=30) as client:
        door.on_interrupt = Webhook(receiver.url, HOOK_SECRET)
        auth = SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE)
        later.app = door_app(door, auth=auth, operator_token=OPERATOR, public_url=base, stream_mode="once")
        yield Served(request.param, base, charge, charges, receiver, client)
    next(made, None)
