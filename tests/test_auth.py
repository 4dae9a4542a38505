"""Who a request is from, over a real socket: bearer JWTs verified against a JWKS this test serves on 127.0.0.1.

The identity provider here is a small real HTTP server (discovery document and
JWKS, counting each time the keys are read), with RSA 2048 and EC P-256 keys made
by ``cryptography``.  The service is ``make_app(desk, auth=...)`` under uvicorn.
"""

import base64
import hashlib
import hmac
import json
import threading
import time

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from fastapi import FastAPI
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from stalwart_agents import Desk
from stalwart_agents.approvals.principal import Principal
from stalwart_agents.approvals.webhook import sign
from stalwart_agents.http.auth import Jwt, SharedSecret
from stalwart_agents.http.jwks import Keys
from stalwart_agents.http.ticket import HEADER as TICKET
from stalwart_agents.http.ticket import LIFETIME, Tickets
from stalwart_agents.serve import make_app

from .conftest import SHOP
from .server import serving, stalwart_serve
from .test_http import read_stream, sse

pytestmark = pytest.mark.sqlite  # the desk under uvicorn keeps its runs in a file, as `stalwart serve` does

AUDIENCE = "stalwart-shop"
CHARGE = {"text": "look up order 4411 and charge 40 to order 4411"}
LOOKUP = {"text": "look up order 4412"}
SECRET = "a-team-secret-of-at-least-32-bytes!"
TEAM = "https://team.example"


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def compact(value) -> str:
    """JSON as a JWT segment or a ticket's body: compact, then base64url without padding."""
    return b64(json.dumps(value, separators=(",", ":")).encode())


class Provider:
    """An OpenID Connect provider on 127.0.0.1: its discovery document, its JWKS, and its private keys to sign with."""

    def __init__(self) -> None:
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.issuer = self.jwks_url = ""
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.published: dict[str, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey] = {"rsa-1": self.rsa, "ec-1": self.ec}
        self.fetches = self.discoveries = 0
        self.outage: Response | None = None

    def publish(self, kid: str, key) -> None:
        self.published = {**self.published, kid: key}

    def jwks(self) -> dict:
        keys = []
        for kid, key in self.published.items():
            if isinstance(key, rsa.RSAPrivateKey):
                jwk, alg = RSAAlgorithm.to_jwk(key.public_key()), "RS256"
            else:
                jwk, alg = ECAlgorithm.to_jwk(key.public_key()), "ES256"
            keys.append({**json.loads(jwk), "kid": kid, "use": "sig", "alg": alg})
        return {"keys": keys}

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/.well-known/openid-configuration")
        def discovery() -> dict:
            with self._lock:
                self.discoveries += 1
            return {
                "issuer": self.issuer,
                "jwks_uri": self.jwks_url,
                "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            }

        @app.get("/jwks.json")
        def jwks() -> Response:
            with self._lock:
                self.fetches += 1
            return self.outage or JSONResponse(self.jwks())

        return app

    def claims(self, **changes) -> dict:
        """An access token's claims for alice, valid for five minutes; a change to None leaves that claim out."""
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": AUDIENCE, "sub": "alice", "iat": now, "exp": now + 300, **changes}
        return {name: value for name, value in claims.items() if value is not None}

    def token(self, kid: str = "rsa-1", key=None, **changes) -> str:
        """A token signed with the key published (or, with ``key``, merely named) as ``kid``."""
        key = key or self.published[kid]
        alg = "ES256" if isinstance(key, ec.EllipticCurvePrivateKey) else "RS256"
        return jwt.encode(self.claims(**changes), key, algorithm=alg, headers={"kid": kid})


@pytest.fixture(scope="module")
def provider():
    provider = Provider()
    with serving(provider.app()) as base:
        provider.issuer, provider.jwks_url = base, f"{base}/jwks.json"
        yield provider


@pytest.fixture
def idp(provider):
    provider.reset()
    yield provider
    provider.reset()


@pytest.fixture
def clock():
    """The key cache's clock, moved by hand: ``clock[0] += 31`` is half a minute later."""
    return [1000.0]


@pytest.fixture
def base(desk, idp, clock):
    auth = Jwt(idp.issuer, AUDIENCE, keys=Keys(idp.jwks_url, clock=lambda: clock[0]))
    with serving(make_app(desk, auth=auth)) as url:
        yield url


@pytest.fixture(scope="module")
def shared(provider, tmp_path_factory):
    """One service for the tests that each keep to threads of their own: (client, desk)."""
    storage = f"sqlite:///{tmp_path_factory.mktemp('shared') / 'runs.db'}"
    with Desk.from_file(SHOP, storage=storage) as desk:
        auth = Jwt(provider.issuer, AUDIENCE, jwks_url=provider.jwks_url)
        with serving(make_app(desk, auth=auth)) as url, httpx.Client(base_url=url, timeout=10) as client:
            yield client, desk


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def assert_refused(answer: httpx.Response, token: str | None = None, why: str = "") -> None:
    """401 unauthorized with a Bearer challenge, saying why without repeating the token or any part of it."""
    assert (answer.status_code, answer.json()["error"]) == (401, "unauthorized"), answer.text
    assert answer.headers["www-authenticate"].startswith("Bearer")
    assert why in answer.json()["message"]
    for part in (token or "").split("."):
        if part:
            assert part not in answer.text and all(part not in value for value in answer.headers.values())


def assert_nothing_ran(desk, ledger, thread: str) -> None:
    assert desk.events(thread) == [] and desk.waiting(thread) == [] and ledger() == []


def unsigned(claims: dict) -> str:
    return f"{compact({'alg': 'none', 'typ': 'JWT', 'kid': 'rsa-1'})}.{compact(claims)}."


def hmac_signed(claims: dict, secret: bytes, kid: str = "rsa-1") -> str:
    """HS256 by hand: PyJWT itself will not take a PEM public key as an HMAC secret."""
    signing = f"{compact({'alg': 'HS256', 'typ': 'JWT', 'kid': kid})}.{compact(claims)}"
    return f"{signing}.{b64(hmac.new(secret, signing.encode(), hashlib.sha256).digest())}"


def tampered(token: str, **changes) -> str:
    header, payload, signature = token.split(".")
    return f"{header}.{compact({**json.loads(unb64(payload)), **changes})}.{signature}"


def public_pem(key) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def test_a_valid_rs256_token_and_a_valid_es256_token_are_both_taken(client, idp):
    rs = client.post("/threads/rs/messages", json=LOOKUP, headers=bearer(idp.token("rsa-1")))
    es = client.post("/threads/es/messages", json=LOOKUP, headers=bearer(idp.token("ec-1", sub="erin")))
    assert (rs.status_code, es.status_code) == (200, 200), (rs.text, es.text)
    assert rs.json()["steps"][0]["result"] and es.json()["steps"][0]["result"]
    assert idp.fetches == 1


def test_without_a_jwks_url_the_keys_are_found_through_the_issuers_discovery_document(desk, idp):
    auth = Jwt(idp.issuer, AUDIENCE)
    assert (auth.keys.url, idp.discoveries) == (idp.jwks_url, 1)
    with serving(make_app(desk, auth=auth)) as url:
        answer = httpx.post(f"{url}/threads/d/messages", json=LOOKUP, headers=bearer(idp.token()), timeout=10)
    assert answer.status_code == 200, answer.text
    assert (idp.discoveries, idp.fetches) == (1, 1)


def test_an_issuer_without_a_discovery_document_is_refused_at_start(idp):
    with pytest.raises(ValueError, match="discovery document"):
        Jwt(f"{idp.issuer}/no-such-tenant", AUDIENCE)


REFUSALS = {
    "expired": (lambda p: p.token(exp=int(time.time()) - 60), "expired"),
    "not-yet-valid": (lambda p: p.token(nbf=int(time.time()) + 120), "not valid yet"),
    "another-issuer": (lambda p: p.token(iss="https://login.other.example"), "another issuer"),
    "another-audience": (lambda p: p.token(aud="another-service"), "another audience"),
    "no-subject": (lambda p: p.token(sub=None), "no 'sub' claim"),
    "no-expiry": (lambda p: p.token(exp=None), "no 'exp' claim"),
    "alg-none": (lambda p: unsigned(p.claims()), "algorithm"),
    "rsa-public-key-as-hs256-secret": (lambda p: hmac_signed(p.claims(), public_pem(p.rsa)), "algorithm"),
    "tampered-payload": (lambda p: tampered(p.token(), sub="mallory"), "signature does not verify"),
    "es256-signature-under-an-rsa-kid": (lambda p: p.token("rsa-1", key=p.ec), ""),
    "not-a-jwt": (lambda p: "q7Zx9.w3Rk.Yv2p", "not a JWT"),
}


@pytest.mark.parametrize("case", REFUSALS, ids=list(REFUSALS))
def test_a_token_that_does_not_verify_is_refused_and_the_turn_never_runs(shared, ledger, idp, case):
    (client, desk), (make, why) = shared, REFUSALS[case]
    token = make(idp)
    answer = client.post(f"/threads/{case}/messages", json=CHARGE, headers=bearer(token))
    assert_refused(answer, token, why)
    assert_nothing_ran(desk, ledger, case)
    assert (
        client.post(f"/threads/{case}/messages", json=LOOKUP, headers=bearer(idp.token(sub="bob"))).status_code == 200
    )


def test_a_token_just_past_its_expiry_or_just_before_its_start_is_taken_within_the_leeway(shared, idp):
    client, now = shared[0], int(time.time())
    late = client.post("/threads/late/messages", json=LOOKUP, headers=bearer(idp.token(exp=now - 10)))
    early = client.post("/threads/early/messages", json=LOOKUP, headers=bearer(idp.token(nbf=now + 10)))
    assert (late.status_code, early.status_code) == (200, 200), (late.text, early.text)


def test_an_unknown_key_id_reads_the_jwks_once_more_then_is_refused_and_the_next_does_not_read_it_again(
    client, desk, ledger, idp, clock
):
    assert client.get("/threads/k/interrupts", headers=bearer(idp.token())).status_code == 404
    assert idp.fetches == 1
    clock[0] += Keys.REFETCH + 1
    first = idp.token("rsa-9", key=idp.other)
    assert_refused(client.post("/threads/k/messages", json=CHARGE, headers=bearer(first)), first, "does not publish")
    assert idp.fetches == 2
    second = idp.token("rsa-10", key=idp.other)
    assert_refused(client.post("/threads/k/messages", json=CHARGE, headers=bearer(second)), second, "does not publish")
    assert idp.fetches == 2
    assert_nothing_ran(desk, ledger, "k")
    assert client.post("/threads/k/messages", json=LOOKUP, headers=bearer(idp.token())).status_code == 200
    assert idp.fetches == 2


def test_after_a_key_rotation_a_token_signed_with_the_new_key_is_taken_after_one_refetch(client, idp, clock):
    assert client.post("/threads/r/messages", json=LOOKUP, headers=bearer(idp.token())).status_code == 200
    idp.publish("rsa-2", idp.other)
    clock[0] += Keys.REFETCH + 1
    rotated = idp.token("rsa-2")
    answer = client.get("/threads/r/interrupts", headers=bearer(rotated))
    assert answer.status_code == 200, answer.text
    assert idp.fetches == 2
    assert client.get("/threads/r/interrupts", headers=bearer(idp.token("rsa-2"))).status_code == 200
    assert idp.fetches == 2


def test_a_key_the_provider_no_longer_publishes_stops_verifying_once_the_cache_expires(client, idp, clock):
    assert client.get("/threads/x/interrupts", headers=bearer(idp.token())).status_code == 404
    idp.published = {"ec-1": idp.ec}
    clock[0] += Keys.TTL + 1
    old = idp.token("rsa-1", key=idp.rsa)
    assert_refused(client.get("/threads/x/interrupts", headers=bearer(old)), old, "does not publish")
    assert idp.fetches == 2


OUTAGES = {
    "jwks-answers-503": lambda: JSONResponse({"error": "down"}, status_code=503),
    "jwks-answers-html": lambda: PlainTextResponse("<html>maintenance</html>"),
    "jwks-answers-a-json-array": lambda: JSONResponse([]),
}


@pytest.mark.parametrize("case", OUTAGES)
def test_while_the_providers_keys_cannot_be_read_a_token_waits_503_and_is_taken_once_they_can(
    client, desk, ledger, idp, clock, case
):
    """503, not 401: a client told 401 would throw its good token away and sign in again."""
    idp.outage = OUTAGES[case]()
    token = idp.token()
    answer = client.post("/threads/o/messages", json=CHARGE, headers=bearer(token))
    assert (answer.status_code, answer.json()["error"]) == (503, "issuer_unavailable")
    assert "try again" in answer.json()["message"] and token.split(".")[1] not in answer.text
    assert_nothing_ran(desk, ledger, "o")
    idp.outage = None
    clock[0] += Keys.REFETCH + 1
    assert client.post("/threads/o/messages", json=LOOKUP, headers=bearer(token)).status_code == 200
    assert idp.fetches == 2


OVERSIZE = 16 * 1024 + 1
MISSING = {
    "no-authorization-header": lambda p: {},
    "basic-scheme": lambda p: {"Authorization": "Basic YWxpY2U6c2VjcmV0"},
    "valid-token-under-another-scheme": lambda p: {"Authorization": f"Token {p.token()}"},
    "bearer-without-a-token": lambda p: {"Authorization": "Bearer"},
    "token-over-16-kib": lambda p: bearer(p.token(pad="x" * OVERSIZE)),
}


@pytest.mark.parametrize("case", MISSING, ids=list(MISSING))
def test_a_request_without_a_usable_bearer_token_gets_a_bearer_challenge_before_any_key_is_read(
    client, desk, ledger, idp, case
):
    headers = MISSING[case](idp)
    answer = client.post("/threads/h/messages", json=CHARGE, headers=headers)
    assert_refused(answer, headers.get("Authorization", "").partition(" ")[2])
    sent_a_token = case == "token-over-16-kib"
    assert (answer.headers["www-authenticate"] == "Bearer") is not sent_a_token
    assert_nothing_ran(desk, ledger, "h")
    assert idp.fetches == 0


def test_every_thread_route_asks_for_the_token(shared):
    client = shared[0]
    routes = [
        ("GET", "/threads/t/interrupts", None),
        ("GET", "/threads/t/stream", None),
        ("POST", "/threads/t/messages", LOOKUP),
        ("POST", "/threads/t/resume", {"interrupt_id": "p_x", "decision": "approve", "token": "t"}),
        ("POST", "/threads/t/feedback", {"message": "m_1", "thumb": "up"}),
    ]
    for method, path, body in routes:
        assert_refused(client.request(method, path, json=body))
    assert client.get("/healthz").status_code == 200 and client.get("/config.json").status_code == 200


@pytest.fixture
def hs_base(desk):
    with serving(make_app(desk, auth=SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE))) as url:
        yield url


def hs_token(secret: str = SECRET, **changes) -> str:
    claims = {"sub": "alice", "iss": TEAM, "aud": AUDIENCE, "exp": int(time.time()) + 300, **changes}
    return jwt.encode({k: v for k, v in claims.items() if v is not None}, secret, algorithm="HS256")


def test_a_shared_secret_takes_a_token_signed_with_it(hs_base):
    answer = httpx.post(f"{hs_base}/threads/s/messages", json=LOOKUP, headers=bearer(hs_token()), timeout=10)
    assert answer.status_code == 200, answer.text


def test_a_shared_secret_shorter_than_32_bytes_or_without_issuer_and_audience_is_refused_at_construction():
    with pytest.raises(ValueError, match="32 bytes"):
        SharedSecret("x" * 31, issuer=TEAM, audience=AUDIENCE)
    for issuer, audience in (("", AUDIENCE), (TEAM, "")):
        with pytest.raises(ValueError, match="issuer and an audience"):
            SharedSecret("x" * 32, issuer=issuer, audience=audience)
    assert SharedSecret(b"x" * 32, issuer=TEAM, audience=AUDIENCE).key == b"x" * 32


@pytest.mark.parametrize(
    "changes",
    [{"aud": "another-service"}, {"iss": "another-team"}, {"iss": None}, {"iss": "stalwart:none", "sub": "anonymous"}],
    ids=["another-audience", "another-issuer", "no-issuer", "the-anonymous-principal"],
)
def test_a_shared_secret_takes_only_its_own_issuer_and_audience_and_never_the_anonymous_principal(
    hs_base, desk, ledger, changes
):
    token = hs_token(**changes)
    answer = httpx.post(f"{hs_base}/threads/s/messages", json=CHARGE, headers=bearer(token), timeout=10)
    assert_refused(answer, token)
    assert_nothing_ran(desk, ledger, "s")


def test_a_shared_secret_refuses_a_token_of_another_secret_and_an_rs256_token(hs_base, desk, ledger, idp):
    other = hs_token("another-team-secret-of-32-bytes-or-more")
    rs = idp.token(aud=AUDIENCE)
    for token, why in ((other, "signature does not verify"), (rs, "algorithm")):
        answer = httpx.post(f"{hs_base}/threads/s/messages", json=CHARGE, headers=bearer(token), timeout=10)
        assert_refused(answer, token, why)
    assert_nothing_ran(desk, ledger, "s")


def test_jwt_mode_refuses_to_be_configured_with_an_hmac_algorithm(idp):
    with pytest.raises(ValueError, match="SharedSecret"):
        Jwt(idp.issuer, AUDIENCE, jwks_url=idp.jwks_url, algorithms=("RS256", "HS256"))


def waiting_of(client, thread: str, token: str) -> tuple[dict, str]:
    """The first pause that waits in the thread, and the stream ticket that came with it."""
    listed = client.get(f"/threads/{thread}/interrupts", headers=bearer(token))
    assert listed.status_code == 200, listed.text
    return listed.json()["waiting"][0], listed.headers[TICKET]


def test_the_audit_of_an_answer_over_http_names_the_verified_principal_and_a_python_answer_does_not(
    client, desk, ledger, idp
):
    token = idp.token(sub="alice")
    assert client.post("/threads/u-17/messages", json=CHARGE, headers=bearer(token)).status_code == 200
    pause, _ = waiting_of(client, "u-17", token)
    body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
    done = client.post("/threads/u-17/resume", json=body, headers=bearer(token))
    assert done.status_code == 200, done.text
    answer = desk.history(pause["thread"])[-1]
    assert answer["principal"] == {"iss": idp.issuer, "sub": "alice", "verified": True}
    assert (answer["verified"], answer["by"], answer["channel"], answer["outcome"]) == (True, "alice", "http", "taken")

    desk.send("py-1", CHARGE["text"])
    desk.confirm("py-1", "approve", by="alice")
    spoken = desk.history("py-1")[-1]
    assert (spoken["by"], spoken["principal"], spoken["verified"], spoken["outcome"]) == ("alice", None, False, "taken")
    assert len(ledger("charge")) == 2


def test_two_people_each_see_only_their_own_threads_and_anothers_thread_looks_like_none(client, desk, ledger, idp):
    """Another's id names nothing of theirs: a turn on it begins the caller's own thread, as on an unused id."""
    alice, bob = idp.token(sub="alice"), idp.token("ec-1", sub="bob")
    assert client.post("/threads/a-1/messages", json=CHARGE, headers=bearer(alice)).status_code == 200
    assert client.post("/threads/b-1/messages", json=LOOKUP, headers=bearer(bob)).status_code == 200
    shown = client.get("/threads/a-1/interrupts", headers=bearer(alice))
    pause = shown.json()["waiting"][0]
    assert pause["token"] in shown.text
    assert client.get("/threads/b-1/interrupts", headers=bearer(bob)).json()["waiting"] == []
    assert client.get("/threads/b-1/interrupts", headers=bearer(alice)).status_code == 404
    before = desk.events(pause["thread"])

    got: list[httpx.Response] = []

    def keep(response: httpx.Response) -> None:
        response.read()
        got.append(response)

    with httpx.Client(
        base_url=client.base_url, timeout=10, headers=bearer(bob), event_hooks={"response": [keep]}
    ) as as_bob:
        resume = {"interrupt_id": pause["id"], "decision": "approve", "token": "guessed"}
        thumb = {"message": "m_1", "thumb": "up"}
        calls = [
            ("POST", "messages", CHARGE),
            ("GET", "interrupts", None),
            ("POST", "resume", resume),
            ("GET", "stream", None),
            ("POST", "feedback", thumb),
        ]
        for method, route, body in calls:
            stored = "a-1" if route == "messages" else pause["thread"]  # the id Alice used; the id her pause shows
            theirs = as_bob.request(method, f"/threads/{stored}/{route}", json=body)
            if route == "messages":  # his own a-1, begun now, as his own of an id nobody used
                ghost = as_bob.request(method, "/threads/nobody-else/messages", json=body)
                assert (theirs.status_code, ghost.status_code) == (
                    200,
                    200,
                ) and theirs.json().keys() == ghost.json().keys()
                assert theirs.json()["thread"] != pause["thread"]
                continue
            ghost = as_bob.request(method, f"/threads/nobody-yet/{route}", json=body)
            assert (
                (theirs.status_code, theirs.json())
                == (ghost.status_code, ghost.json())
                == (404, {"error": "not_found", "message": "no such thread"})
            ), route
            assert TICKET.lower() not in theirs.headers
        own = as_bob.get("/threads/b-1/interrupts")
        assert own.status_code == 200

    for answer in got:
        assert pause["token"] not in answer.text
        assert all(pause["token"] not in value for value in answer.headers.values())
    assert len(got) == 11
    assert desk.events(pause["thread"]) == before and desk.waiting(pause["thread"])[0].id == pause["id"]
    assert ledger() == []
    assert client.get("/threads/nobody-yet/interrupts", headers=bearer(alice)).status_code == 404


def test_the_stream_opens_with_the_bearer_token_or_with_the_ticket_alone(base, client, idp):
    alice = idp.token()
    client.post("/threads/a-1/messages", json=CHARGE, headers=bearer(alice))
    _, ticket = waiting_of(client, "a-1", alice)
    with_token = sse(read_stream(base, "a-1", seconds=0.3, headers=bearer(alice)))
    with_ticket = sse(read_stream(base, "a-1", seconds=0.3, params={"ticket": ticket}))
    assert [kind for _, kind, _ in with_token] == ["turn", "step", "pause"]
    assert with_ticket == with_token
    assert_refused(httpx.get(f"{base}/threads/a-1/stream", timeout=5))


def test_a_stream_ticket_opens_only_its_own_threads_stream_and_nothing_else(base, client, desk, idp):
    alice, bob = idp.token(), idp.token(sub="bob")
    for thread, token in (("a-1", alice), ("a-2", alice), ("b-1", bob)):
        assert client.post(f"/threads/{thread}/messages", json=LOOKUP, headers=bearer(token)).status_code == 200
    ticket = client.get("/threads/a-1/interrupts", headers=bearer(alice)).headers[TICKET]

    assert_refused(httpx.get(f"{base}/threads/a-2/stream", params={"ticket": ticket}, timeout=5), ticket)
    assert_refused(httpx.get(f"{base}/threads/b-1/stream", params={"ticket": ticket}, timeout=5), ticket)
    assert_refused(httpx.get(f"{base}/threads/a-1/interrupts", params={"ticket": ticket}, timeout=5), ticket)

    tickets = Tickets(desk.storage.secret("session", "unused").encode())
    alices = Principal(idp.issuer, "alice").key
    forged_owner = tickets.mint("b-1", alices, time.time())
    theirs = httpx.get(f"{base}/threads/b-1/stream", params={"ticket": forged_owner}, timeout=5)
    assert (theirs.status_code, theirs.json()) == (404, {"error": "not_found", "message": "no such thread"})


def test_a_tampered_or_expired_stream_ticket_is_refused(base, client, desk, idp):
    alice = idp.token()
    client.post("/threads/a-1/messages", json=LOOKUP, headers=bearer(alice))
    ticket = client.get("/threads/a-1/interrupts", headers=bearer(alice)).headers[TICKET]
    part, mac = ticket.split(".")
    thread, owner, expires = json.loads(unb64(part))
    longer = f"{compact([thread, owner, expires + 86_400])}.{mac}"
    bobs = f"{compact([thread, Principal(idp.issuer, 'bob').key, expires])}.{mac}"
    flipped = f"{part}.{mac[:-1]}{'0' if mac[-1] != '0' else '1'}"
    for bad in (longer, bobs, flipped, part, ""):
        assert_refused(httpx.get(f"{base}/threads/a-1/stream", params={"ticket": bad}, timeout=5))

    tickets = Tickets(desk.storage.secret("session", "unused").encode())
    expired = tickets.mint("a-1", owner, time.time() - LIFETIME - 1)
    assert_refused(httpx.get(f"{base}/threads/a-1/stream", params={"ticket": expired}, timeout=5), expired)
    fresh = tickets.mint("a-1", owner, time.time())
    assert [kind for _, kind, _ in sse(read_stream(base, "a-1", seconds=0.3, params={"ticket": fresh}))][:1] == ["turn"]


def test_api_gateway_claims_are_the_principal_with_list_claims_and_cognito_groups_read_back():
    from starlette.requests import Request

    from stalwart_agents.http.auth import ApiGatewayClaims

    claims = {
        "iss": "https://cognito-idp.eu-west-1.amazonaws.com/pool",
        "sub": "u-1",
        "cognito:groups": "[finance admin]",
        "email": "a@x",
    }
    event = {"requestContext": {"authorizer": {"jwt": {"claims": claims}}}}
    who = ApiGatewayClaims().principal(Request({"type": "http", "headers": [], "aws.event": event}))
    assert (who.issuer, who.subject, who.verified) == (claims["iss"], "u-1", True)
    assert who.claims == {"email": "a@x", "groups": ["finance", "admin"]}


def test_stalwart_serve_with_auth_jwt_finds_the_keys_by_discovery_and_takes_only_signed_in_callers(idp, tmp_path):
    args = (
        "--auth",
        "jwt",
        "--jwt-issuer",
        idp.issuer,
        "--jwt-audience",
        AUDIENCE,
        "--storage",
        f"sqlite:///{tmp_path / 'runs.db'}",
    )
    with stalwart_serve(SHOP, *args) as (base, _):
        signed_in = httpx.post(f"{base}/threads/t/messages", json=LOOKUP, headers=bearer(idp.token()))
        anonymous = httpx.post(f"{base}/threads/t/messages", json=LOOKUP)
    assert signed_in.status_code == 200 and idp.discoveries == 1
    assert (anonymous.status_code, anonymous.json()["error"]) == (401, "unauthorized")


def test_with_a_resume_secret_a_signed_in_persons_resume_needs_no_signature_and_a_bad_one_is_still_refused(
    desk, ledger
):
    """The interface signs nobody's bodies: its resumes are the signed-in person's, as their turns are."""
    auth = SharedSecret(SECRET, issuer=TEAM, audience=AUDIENCE)
    with serving(make_app(desk, auth=auth, secret="resume-secret-of-the-chat-bridge")) as base:
        headers = bearer(hs_token())
        pause = httpx.post(f"{base}/threads/r/messages", json=CHARGE, headers=headers, timeout=10).json()["waiting"][0]
        body = json.dumps({"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}).encode()
        forged = httpx.post(
            f"{base}/threads/r/resume",
            content=body,
            headers={**headers, "content-type": "application/json", "Stalwart-Signature": sign("other", body)},
        )
        taken = httpx.post(
            f"{base}/threads/r/resume", content=body, headers={**headers, "content-type": "application/json"}
        )
    assert (forged.status_code, forged.json()["error"]) == (401, "bad_signature")
    assert taken.status_code == 200, taken.text
    assert len(ledger("charge")) == 1
