"""Ids holding a control character (a NUL failed Postgres with a 500): refused at the door with a 400 naming the
field, by the Python API with a clear error, and found nowhere by a store asked for one."""

import httpx
import pytest

from stalwart_agents import Desk
from stalwart_agents.errors import BadRequest
from stalwart_agents.serve import make_app

from .conftest import SHOP
from .server import serving
from .storage.conftest import postgres_url  # noqa: F401 (fixture)

CHARGE = {"text": "charge 40 to order 4411"}
AWKWARD = ["\x00", "\x1f", "\x7f", "\x9f"]


@pytest.fixture
def desk(postgres_url):  # noqa: F811
    with Desk.from_file(SHOP, storage=postgres_url) as desk:
        yield desk


@pytest.fixture
def client(desk):
    with serving(make_app(desk)) as base, httpx.Client(base_url=base, timeout=30) as client:
        yield client


@pytest.mark.parametrize("awkward", AWKWARD)
def test_a_pause_id_with_a_control_character_is_400_naming_it_and_the_pause_still_waits(client, awkward):
    pause = client.post("/threads/u-1/messages", json=CHARGE).json()["waiting"][0]
    body = {"interrupt_id": pause["id"] + awkward, "decision": "approve", "token": pause["token"]}
    for route, sent in (("/threads/u-1/resume", body), ("/interrupts/answers", {"answers": [body]})):
        refused = client.post(route, json=sent)
        assert (refused.status_code, refused.json()["error"]) == (400, "bad_request"), refused.text
        assert "interrupt_id" in refused.json()["message"]
    assert [p["id"] for p in client.get("/threads/u-1/interrupts").json()["waiting"]] == [pause["id"]]


@pytest.mark.parametrize("awkward", AWKWARD)
def test_a_message_id_with_a_control_character_is_400_naming_it(client, awkward):
    shown = client.post("/threads/u-1/messages", json={"text": "look up order 4412"})
    session, message = shown.headers["stalwart-session"], shown.json()["reply"]["id"]
    body = {"message": message + awkward, "thumb": "up"}
    refused = client.post("/threads/u-1/feedback", json=body, headers={"Stalwart-Session": session})
    assert (refused.status_code, refused.json()["error"]) == (400, "bad_request"), refused.text
    assert "message" in refused.json()["message"]


def test_the_python_api_refuses_a_pause_id_with_a_nul_and_a_store_finds_none(desk):
    [pause] = desk.send("u-1", "charge 40 to order 4411").waiting
    with pytest.raises(BadRequest, match="a pause id is a non-empty string"):
        desk.confirm("u-1", "approve", pause.id + "\x00")
    assert desk.storage.get_pause(pause.id + "\x00") is None and desk.storage.feedback("m\x00") is None
    assert desk.confirm("u-1", "approve", pause.id).status == "done"
