"""The browser boundary, attacked as a hostile page or a rebinding name would, over a real uvicorn on 127.0.0.1.

Every refusal is checked against the shop's own ledger: a refused request moved no money and opened no pause.
"""

import json
import subprocess
import sys
import uuid

import httpx
import pytest

from stalwart_agents import Desk
from stalwart_agents.approvals.admission import STORED_THREAD_MAX
from stalwart_agents.serve import make_app

from .conftest import SHOP, present
from .server import serving, stalwart_serve

pytestmark = pytest.mark.sqlite  # the desk under uvicorn keeps its runs in a file, as `stalwart serve` does

TRANSFER = {"text": "look up order 4411 and charge 40 to order 4411"}
JSON = {"Content-Type": "application/json"}
EVIL = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}


@pytest.fixture
def base(desk):
    with serving(make_app(desk, allowed_origins=["https://shop.example"])) as url:
        yield url


@pytest.fixture
def pause(base):
    """A charge waiting in the victim's thread, with the token only its owner should ever hold."""
    return httpx.post(f"{base}/threads/victim/messages", json=TRANSFER).json()["waiting"][0]


def untouched(desk, ledger, pause):
    """Nothing moved: no charge in the ledger, and the victim's pause still waits, unanswered."""
    assert ledger("charge") == []
    assert [p.id for p in desk.waiting("victim")] == [pause["id"]]


def approval(pause, **changes):
    return {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"], **changes}


@pytest.mark.parametrize(
    "host",
    [
        "rebind.attacker.example:8700",
        "attacker.example",
        "127.0.0.1.nip.io",
        "[::2]:8700",
        "127.0.0.1:8700@evil.example",
        "[::1]evil.example",
        "[::1].evil.example",
        "localhost:port",
    ],
)
def test_a_host_the_service_does_not_answer_for_is_refused_before_any_route(base, desk, ledger, pause, host):
    read = httpx.get(f"{base}/threads/victim/interrupts", headers={"Host": host})
    approve = httpx.post(f"{base}/threads/victim/resume", json=approval(pause), headers={"Host": host})
    for answer in (read, approve):
        assert (answer.status_code, answer.json()["error"]) == (400, "bad_request")
        assert pause["token"] not in answer.text
    untouched(desk, ledger, pause)


def test_loopback_names_and_listed_hosts_are_answered(desk):
    with serving(make_app(desk, allowed_hosts=["127.0.0.1", "agents.internal"])) as url:
        assert httpx.get(f"{url}/healthz", headers={"Host": "agents.internal:8700"}).status_code == 200
        assert httpx.get(f"{url}/healthz", headers={"Host": "localhost"}).status_code == 400
    for host in ("localhost:8700", "127.0.0.1", "[::1]:8700"):
        with serving(make_app(desk)) as url:
            assert httpx.get(f"{url}/healthz", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None],
)
@pytest.mark.parametrize("route", ["messages", "resume"])
def test_a_cross_site_simple_post_is_refused(base, desk, ledger, pause, route, content_type):
    body = json.dumps(TRANSFER if route == "messages" else approval(pause))
    headers = {**EVIL, **({"Content-Type": content_type} if content_type else {})}
    answer = httpx.post(f"{base}/threads/victim/{route}", content=body, headers=headers)
    assert (answer.status_code, answer.json()["error"]) == (403, "forbidden")
    untouched(desk, ledger, pause)


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", None, "application/json; charset=utf-16"]
)
def test_a_body_that_does_not_say_it_is_json_is_refused_even_from_the_same_origin(
    base, desk, ledger, pause, content_type
):
    headers = {"Content-Type": content_type} if content_type else {}
    answer = httpx.post(f"{base}/threads/victim/resume", content=json.dumps(approval(pause)), headers=headers)
    assert (answer.status_code, answer.json()["error"]) == (415, "unsupported_media_type")
    untouched(desk, ledger, pause)


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://localhost:1"},
        {"Sec-Fetch-Site": "cross-site"},
    ],
)
def test_a_request_from_another_origin_is_refused_even_as_json(base, desk, ledger, pause, headers):
    approve = httpx.post(f"{base}/threads/victim/resume", json=approval(pause), headers=headers)
    read = httpx.get(f"{base}/threads/victim/interrupts", headers=headers)
    for answer in (approve, read):
        assert (answer.status_code, answer.json()["error"]) == (403, "forbidden")
        assert pause["token"] not in answer.text
    untouched(desk, ledger, pause)


def test_a_preflight_from_an_unlisted_origin_fails_and_a_listed_origin_gets_cors(base):
    ask = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,authorization"}
    evil = httpx.options(f"{base}/threads/victim/resume", headers={"Origin": "https://evil.example", **ask})
    assert evil.status_code == 403 and "access-control-allow-origin" not in evil.headers
    shop = httpx.options(f"{base}/threads/victim/resume", headers={"Origin": "https://shop.example", **ask})
    assert shop.status_code == 200 and shop.headers["access-control-allow-origin"] == "https://shop.example"
    listed = httpx.post(
        f"{base}/threads/shopper/messages",
        json={"text": "look up order 4412"},
        headers={"Origin": "https://shop.example"},
    )
    assert listed.status_code == 200 and listed.headers["access-control-allow-origin"] == "https://shop.example"
    assert "Stalwart-Stream-Ticket" in listed.headers["access-control-expose-headers"]


def test_the_same_origin_and_a_link_from_another_site_still_open_the_interface(base):
    same = httpx.post(f"{base}/threads/mine/messages", json={"text": "look up order 4412"}, headers={"Origin": base})
    assert same.status_code == 200
    opened = httpx.get(f"{base}/", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"})
    assert opened.status_code == 200 and "<stalwart-chat" in opened.text


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (
            b'{"interrupt_id": "%(id)s", "decision": "skip", "token": "%(token)s", "decision": "approve"}',
            "more than once",
        ),
        (b'{"interrupt_id": "%(id)s", "decision": "approve", "token": "%(token)s", "value": NaN}', "NaN"),
        (b'{"interrupt_id": "%(id)s", "decision": "approve", "token": "%(token)s", "value": Infinity}', "Infinity"),
        (b'{"interrupt_id": "%(id)s", "decision": "approve", "token": "%(token)s", "value": -Infinity}', "-Infinity"),
        (b'{"interrupt_id": "%(id)s", "decision": "approve", "token": "%(token)s", "value": 1e999}', "out of range"),
        (
            b'{"interrupt_id": "%(id)s", "decision": "approve", "token": "%(token)s", "value": 9007199254740993}',
            "out of range",
        ),
        (b'{"interrupt_id": "%(id)s", "decision": "approve", "token": "%(token)s", "value": "\\ud800"}', "surrogate"),
        (b'\xef\xbb\xbf{"interrupt_id": "%(id)s", "decision": "approve", "token": "%(token)s"}', "byte order mark"),
        (
            b'{"interrupt_id": "%(id)s", "decision": "approve", "token": "%(token)s", "value": 9007199254740993.0}',
            "out of range",
        ),
        (b'{"interrupt_id": "%(id)s", "decision": "approve", "token": "%(token)s", "value": true}', "value"),
    ],
)
def test_a_body_that_is_not_strict_json_is_refused(base, desk, ledger, pause, raw, why):
    body = raw % {b"id": pause["id"].encode(), b"token": pause["token"].encode()}
    answer = httpx.post(f"{base}/threads/victim/resume", content=body, headers=JSON)
    assert (answer.status_code, answer.json()["error"]) == (400, "bad_request")
    assert why in answer.json()["message"]
    untouched(desk, ledger, pause)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"])
def test_a_body_not_in_utf8_is_refused(base, desk, ledger, pause, encoding):
    body = json.dumps(approval(pause)).encode(encoding)
    answer = httpx.post(f"{base}/threads/victim/resume", content=body, headers=JSON)
    assert (answer.status_code, answer.json()["error"]) == (400, "bad_request")
    untouched(desk, ledger, pause)


CONTROL_IDS = ["victim%00", "vic%01tim", "victim%0A", "%7F", "vic%C2%85tim", "a" * (STORED_THREAD_MAX + 1)]


def refused_on_every_route(url, thread):
    answers = [
        httpx.post(f"{url}/threads/{thread}/messages", json=TRANSFER),
        httpx.get(f"{url}/threads/{thread}/interrupts"),
        httpx.post(f"{url}/threads/{thread}/resume", json={"interrupt_id": "p", "decision": "approve", "token": "t"}),
        httpx.get(f"{url}/threads/{thread}/stream", timeout=5),
        httpx.post(f"{url}/threads/{thread}/feedback", json={"message": "m", "thumb": "up"}),
        httpx.post(f"{url}/threads/{thread}/rollback"),
    ]
    return [(a.status_code, a.headers["content-type"], a.json()["error"]) for a in answers]


@pytest.mark.parametrize("thread", CONTROL_IDS)
def test_a_thread_id_with_control_characters_or_too_long_is_400_on_every_route(base, ledger, thread):
    assert refused_on_every_route(base, thread) == [(400, "application/json", "bad_request")] * 6
    assert ledger() == []


def test_control_characters_in_thread_ids_are_400_on_postgres_too(postgres_cluster, ledger):
    storage = postgres_cluster.create_database(f"boundary_{uuid.uuid4().hex[:8]}")
    with Desk.from_file(SHOP, storage=storage) as desk, serving(make_app(desk)) as url:
        for thread in ("victim%00", "vic%01tim", "%7F"):
            assert refused_on_every_route(url, thread) == [(400, "application/json", "bad_request")] * 6
        assert httpx.post(f"{url}/threads/fine/messages", json={"text": "look up order 4412"}).status_code == 200
    with pytest.raises(Exception, match="control characters"):
        Desk.from_file(SHOP, storage="memory://").send("nul\x00", "look up order 4412")


def serve(*args, env=None):
    command = [sys.executable, "-m", "stalwart_agents", "serve", str(SHOP), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=30, env=env)


def test_no_page_of_the_service_loads_a_script_from_another_host(base):
    assert httpx.get(f"{base}/docs").status_code == 404 and httpx.get(f"{base}/redoc").status_code == 404
    assert httpx.get(f"{base}/openapi.json").status_code == 200
    assert "https://" not in httpx.get(f"{base}/").text


def test_the_sqlite_store_is_readable_by_its_owner_alone(desk, base):
    httpx.post(f"{base}/threads/mine/messages", json={"text": "look up order 4412"})
    path = desk.storage.path
    for made in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        assert made.stat().st_mode & 0o077 == 0, made


def test_serve_on_every_address_without_auth_refuses_to_start_and_says_how(tmp_path):
    done = serve("--host", "0.0.0.0", "--storage", f"sqlite:///{tmp_path / 'runs.db'}")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--auth jwt" in done.stderr and "--proxy-authenticates" in done.stderr


def test_serve_behind_an_authenticating_proxy_starts_on_every_address_and_says_so_in_its_log(tmp_path):
    storage = f"sqlite:///{tmp_path / 'runs.db'}"
    with stalwart_serve(SHOP, "--host", "0.0.0.0", "--proxy-authenticates", "--storage", storage) as (base, process):
        assert httpx.get(f"{base}/healthz").status_code == 200
        process.terminate()
        process.wait(timeout=10)
        log = present(process.stdout).read()
    assert "no authentication here: a proxy in front of this address must authenticate every request" in log


@pytest.mark.parametrize(
    "storage",
    ["sqlite:///{tmp}", "postgres://stalwart:do-not-print@127.0.0.1:1/nothing"],
    ids=["sqlite-folder", "postgres-unreachable"],
)
def test_a_store_that_cannot_be_opened_is_one_line_naming_it_and_the_fix(tmp_path, storage):
    done = serve("--storage", storage.format(tmp=tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr and "do-not-print" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("stalwart: the ") and ("check" in line or "create" in line)
