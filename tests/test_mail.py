"""Mail as a channel, against a real SMTP server on 127.0.0.1 (aiosmtpd): what a pause's message carries, that its
signed links answer the pause once, that a refused send is reported and retried, and that credentials go only over
STARTTLS to a server whose certificate verifies."""

from __future__ import annotations

import contextlib
import email
import email.policy
import ipaddress
import re
import socket
import ssl
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from stalwart_agents import ConfigError, Desk
from stalwart_agents.approvals.announce import FIRST_RETRY
from stalwart_agents.approvals.card import Card, card_of
from stalwart_agents.approvals.links import Links
from stalwart_agents.approvals.overdue import tick
from stalwart_agents.approvals.redeliver import Redelivered, redeliver
from stalwart_agents.channels import Channels, Receipt
from stalwart_agents.channels.mail import Mail, MailError
from stalwart_agents.config import MailConfig
from stalwart_agents.engine.pause import Pause
from stalwart_agents.serve import make_app

from .conftest import SHOP, delivery_of, present
from .server import Later, free_port, serving
from .test_approvers import ALICE, shop
from .test_deadlines import Clock

SENDER = "Approvals <approvals@shop.example>"
TO = ["fiona@shop.example", "Rita <rita@shop.example>"]
THREAD = "thread-mail"
CHARGE = "look up order 4411 and charge 40 to order 4411"
LOGIN = {"SMTP_USER": "approvals", "SMTP_PASSWORD": "pw-Zq81-never-shown"}


class Inbox:
    """An SMTP server's handler: every message it took, as parsed; ``refuse`` (a reply) refuses each recipient."""

    def __init__(self) -> None:
        self.got: list[tuple[list[str], EmailMessage]] = []
        self.refuse: str | None = None
        self.logins: list[tuple[bytes, bytes, bool]] = []

    async def handle_RCPT(self, server, session, envelope, address, options) -> str:
        if self.refuse is not None:
            return self.refuse
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        self.got.append((list(envelope.rcpt_tos), parsed))
        return "250 Message accepted"

    def messages(self) -> list[EmailMessage]:
        return [message for _, message in self.got]

    def authenticate(self, server, session, envelope, mechanism, data) -> AuthResult:
        """Takes only ``LOGIN``'s credentials, noting each try and whether it came over TLS."""
        self.logins.append((data.login, data.password, session.ssl is not None))
        good = (data.login, data.password) == (LOGIN["SMTP_USER"].encode(), LOGIN["SMTP_PASSWORD"].encode())
        return AuthResult(success=good, handled=False)


@contextlib.contextmanager
def smtp_server(port: int | None = None, inbox: Inbox | None = None, **options: Any) -> Iterator[tuple[Inbox, int]]:
    """aiosmtpd on 127.0.0.1 for the block: its handler, and its port."""
    inbox, port = inbox or Inbox(), port or free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port, ready_timeout=5, **options)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    with smtp_server() as running:
        yield running


def config(port: int, *, starttls: bool = False, login: bool = False, host: str = "127.0.0.1", **smtp: Any):
    credentials = {"username": {"env": "SMTP_USER"}, "password": {"env": "SMTP_PASSWORD"}} if login else {}
    given = {"host": host, "port": port, "starttls": starttls, "timeout": 5, **credentials, **smtp}
    return MailConfig.model_validate({"smtp": given, "sender": SENDER, "to": TO})


def channel_cards(desk: Desk):
    """The card as a channel's reader sees it, as the service makes it."""
    return lambda pause: card_of(pause, desk.verdict(pause, None), None, edits=False)


def parts(message: EmailMessage) -> tuple[str, str]:
    """The text and the HTML of a multipart/alternative message."""
    assert message.get_content_type() == "multipart/alternative"
    text, shown = message.get_body(("plain",)), message.get_body(("html",))
    assert text is not None and shown is not None
    return text.get_content().replace("\r\n", "\n"), shown.get_content().replace("\r\n", "\n")


def hrefs(markup: str) -> list[str]:
    return [m.replace("&amp;", "&") for m in re.findall(r'href="([^"]+)"', markup)]


def words(markup: str) -> str:
    body = re.sub(r"<head>.*?</head>", " ", markup, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


class Counting:
    """Another channel beside the mail: counts what it was sent."""

    name = "counting"

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []

    def announce(self, pause: Pause, receipt: Receipt | None) -> Receipt:
        self.sent.append((pause.id, pause.woken))
        return {"n": len(self.sent)}

    def settle(self, pause: Pause, answer: Any, receipt: Receipt) -> None:
        return None


def test_a_pause_is_mailed_as_its_card_and_its_link_answers_it_once(tmp_path, ledger, smtp):
    inbox, port = smtp
    later = Later()
    with (
        Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}") as desk,
        serving(later) as base,
    ):
        minted: list[Links] = []  # the app's own links, once the app is made
        mail = Mail(config(port), {}, channel_cards(desk), lambda pause: minted[0].mint(pause))
        later.app = app = make_app(desk, on_interrupt=Channels([mail]), public_url=base)
        minted.append(app.state.links)
        turn = httpx.post(f"{base}/threads/{THREAD}/messages", json={"text": CHARGE}, timeout=10).json()
        [pause], [(rcpt, message)] = turn["waiting"], inbox.got
        assert turn["not_notified"] == []

        assert rcpt == ["fiona@shop.example", "rita@shop.example"]
        assert message["Subject"] == "Waiting for your decision: Charge 40.00 EUR to order 4411"
        assert message["From"] == SENDER and message["To"] == ", ".join(TO)
        assert message["Auto-Submitted"] == "auto-generated" and message["In-Reply-To"] is None
        receipt = delivery_of(desk.storage, pause["id"])["receipts"]["mail"]
        assert receipt["message_id"] == message["Message-ID"] == receipt["first_message_id"]

        text, markup = parts(message)
        for shown in (text, words(markup)):
            assert "Charge 40.00 EUR to order 4411" in shown and "What it will use" in shown
            assert "It changes something outside this conversation." in shown
        assert "- Amount: 40.00 EUR (the person who asked typed it)\n- Order: 4411 (the person" in text
        assert "<dt>Amount</dt><dd>40.00 EUR<small>the person who asked typed it</small></dd>" in markup
        links = hrefs(markup)
        assert len(links) == 3 and all(link.startswith(f"{base}/links/") for link in links)
        labelled = [line.split(": ", 1) for line in text.splitlines()[-3:]]  # the same links, in the same order
        assert labelled == [["Approve", links[0]], ["Skip this step", links[1]], ["Cancel everything", links[2]]]
        assert "<form" not in markup and "<script" not in markup

        approve = links[0]
        assert httpx.get(approve, timeout=10).status_code == 200 and ledger("charge") == []
        assert httpx.post(approve, timeout=10).status_code == 200
        assert httpx.post(approve, timeout=10).status_code == 409
        assert httpx.post(links[1], timeout=10).status_code == 409
        assert len(ledger("charge")) == 1 and desk.waiting(THREAD) == []
        [taken] = [a for a in desk.history(THREAD) if a.get("outcome") == "taken"]
        assert taken["channel"] == "link"
        assert len(inbox.got) == 1  # the answer sends nothing: a mail cannot be changed


def test_every_value_is_escaped_in_the_html_and_on_one_line_in_the_text(desk, ledger, smtp):
    inbox, port = smtp
    hostile = '<img src=x onerror="alert(1)">\nApprove: https://evil.example/'

    def cards(pause: Pause) -> Card:
        card = card_of(pause, desk.verdict(pause, None), None)
        card["title"] = hostile
        card["arguments"][0]["shown"] = "<script>alert(2)</script>"
        return card

    [pause] = desk.send(THREAD, CHARGE).waiting
    Mail(config(port), {}, cards, lambda p: {"approve": 'https://shop.example/links/a"b<c'}).announce(pause, None)
    [message] = inbox.messages()
    text, markup = parts(message)
    assert "<img" not in markup and "<script" not in markup and 'a"b<c' not in markup
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in markup and "&lt;script&gt;" in markup
    assert 'href="https://shop.example/links/a&quot;b&lt;c"' in markup
    assert '<img src=x onerror="alert(1)"> Approve: https://evil.example/' in text  # one line, not a link's own
    assert not any(line.startswith("Approve: https://evil") for line in text.splitlines())
    assert "\n" not in message["Subject"] and message["Subject"].endswith("Approve: https://evil.example/")


def test_an_ask_and_a_service_without_links_say_to_answer_in_the_app(tmp_path, ledger, smtp):
    inbox, port = smtp
    with Desk.from_file(shop(tmp_path, ""), storage="memory://") as desk:
        desk.storage.own("t", ALICE.key)
        [ask] = desk.send("t", "charge order 4411").waiting
        [confirm] = desk.send("t2", CHARGE).waiting
        links = {"approve": "https://shop.example/links/x", "skip": "https://shop.example/links/y"}
        Mail(config(port), {}, channel_cards(desk), lambda pause: {} if pause.kind == "ask" else links).announce(
            ask, None
        )
        Mail(config(port), {}, channel_cards(desk), None).announce(confirm, None)
    assert ask.kind == "ask" and len(inbox.got) == 2
    for message in inbox.messages():
        text, markup = parts(message)
        assert "To answer, sign in: it waits in your inbox." in text and "waits in your inbox" in words(markup)
        assert "https://" not in text and "href" not in markup


@pytest.mark.parametrize("outage", ["refused", "down"])
def test_a_refused_send_is_reported_and_redelivered_once_without_the_other_channel_again(tmp_path, ledger, outage):
    port, other = free_port(), Counting()
    with contextlib.ExitStack() as stack:
        if outage == "refused":
            inbox, _ = stack.enter_context(smtp_server(port))
            inbox.refuse = "550 5.7.1 Relaying denied"
        desk = stack.enter_context(Desk.from_file(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}"))
        desk.on_interrupt = Channels([other, Mail(config(port), {}, channel_cards(desk), None)])
        reply = desk.send(THREAD, CHARGE)
        failed = time.time()
        [pause], [missed] = reply.waiting, reply.not_notified
        why = "every recipient refused: 550 5.7.1 Relaying denied" if outage == "refused" else "connection refused"
        assert missed == {"interrupt": pause.id, "error": f"mail: mail via 127.0.0.1:{port} not sent: {why}"}
        assert other.sent == [(pause.id, 0)]
        assert set(delivery_of(desk.storage, pause.id)["receipts"]) == {"counting"}

        again = redeliver(desk.storage, desk.on_interrupt, failed + FIRST_RETRY + 1)
        assert again == Redelivered(failed=[pause.id]) and other.sent == [(pause.id, 0)]

        if outage == "refused":
            inbox.refuse = None
        else:
            inbox, _ = stack.enter_context(smtp_server(port))
        done = redeliver(desk.storage, desk.on_interrupt, failed + 10 * FIRST_RETRY)
        assert done == Redelivered(delivered=[pause.id])
        [message] = inbox.messages()
        assert other.sent == [(pause.id, 0)]  # the other channel took it the first time, and is not sent it again
        delivery = delivery_of(desk.storage, pause.id)
        assert delivery["delivered"] is True and delivery["receipts"]["mail"]["message_id"] == message["Message-ID"]
        assert redeliver(desk.storage, desk.on_interrupt, failed + 100 * FIRST_RETRY) == Redelivered()
        assert len(inbox.got) == 1


def test_a_server_that_never_answers_fails_within_the_timeout(desk, ledger):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # takes the connection, never says hello
        mail = Mail(config(silent.getsockname()[1], timeout=0.3), {}, channel_cards(desk), None)
        [pause] = desk.send(THREAD, CHARGE).waiting
        started = time.monotonic()
        with pytest.raises(MailError, match=r"not sent: timed out$"):
            mail.announce(pause, None)
        assert time.monotonic() - started < 2


def certificate(tmp_path: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A self-signed certificate for 127.0.0.1: the server's context, and a client's that trusts it."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.now(UTC)
    made = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem = made.public_bytes(serialization.Encoding.PEM)
    (tmp_path / "cert.pem").write_bytes(pem)
    (tmp_path / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    return server, ssl.create_default_context(cadata=pem.decode())


def test_starttls_carries_the_credentials_to_a_server_whose_certificate_verifies(tmp_path, desk, ledger):
    server_tls, trusting = certificate(tmp_path)
    [pause] = desk.send(THREAD, CHARGE).waiting
    inbox = Inbox()
    tls: dict[str, Any] = {"tls_context": server_tls, "require_starttls": True, "auth_required": True}
    with smtp_server(inbox=inbox, authenticator=inbox.authenticate, **tls) as (_, port):
        mail = Mail(config(port, starttls=True, login=True), LOGIN, channel_cards(desk), None, tls=trusting)
        assert mail.announce(pause, None)["message_id"] == inbox.messages()[0]["Message-ID"]
        assert inbox.logins == [(b"approvals", LOGIN["SMTP_PASSWORD"].encode(), True)]

        wrong = {**LOGIN, "SMTP_PASSWORD": "not-the-password"}
        refused = Mail(config(port, starttls=True, login=True), wrong, channel_cards(desk), None, tls=trusting)
        with pytest.raises(MailError) as caught:
            refused.announce(pause, None)
        assert caught.value.message.startswith(f"mail via 127.0.0.1:{port} not sent: 535 ")
        assert "not-the-password" not in str(caught.value) and "\n" not in caught.value.message

        tried = len(inbox.logins)
        untrusting = Mail(config(port, starttls=True, login=True), LOGIN, channel_cards(desk), None)
        with pytest.raises(MailError, match=r"its TLS certificate is not trusted: self-signed certificate$"):
            untrusting.announce(pause, None)
        assert len(inbox.got) == 1 and len(inbox.logins) == tried  # no credentials to a server not verified


def test_credentials_are_never_sent_without_tls(desk, ledger, smtp):
    inbox, port = smtp  # offers no STARTTLS
    [pause] = desk.send(THREAD, CHARGE).waiting
    with pytest.raises(MailError, match=re.escape("STARTTLS extension not supported by server. (nothing was sent)")):
        Mail(config(port, starttls=True, login=True), LOGIN, channel_cards(desk), None).announce(pause, None)
    with pytest.raises(ConfigError, match="credentials are sent only over STARTTLS"):
        Mail(config(587, host="smtp.shop.example", login=True), LOGIN, channel_cards(desk), None)
    Mail(config(587, host="smtp.shop.example"), {}, channel_cards(desk), None)  # a relay that takes no credentials
    with pytest.raises(ConfigError, match="SMTP_PASSWORD is not set"):
        Mail(config(port, starttls=True, login=True), {"SMTP_USER": "approvals"}, channel_cards(desk), None)
    assert inbox.got == [] and inbox.logins == []


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")
def test_on_loopback_starttls_false_sends_credentials_in_the_clear_when_told(desk, ledger):
    inbox = Inbox()
    with smtp_server(inbox=inbox, authenticator=inbox.authenticate, auth_require_tls=False) as (_, port):
        [pause] = desk.send(THREAD, CHARGE).waiting
        Mail(config(port, login=True), LOGIN, channel_cards(desk), None).announce(pause, None)
        assert len(inbox.got) == 1 and inbox.logins == [(b"approvals", LOGIN["SMTP_PASSWORD"].encode(), False)]


REMIND_THEN_ESCALATE = """
    deadlines:
      - tool: charge_card
        expires: 4h
        remind: [1h, 3h]
        escalate: {after: 2h, to: '"managers" in who.groups', label: the managers}
"""


def test_each_reminder_and_the_escalation_is_a_message_replying_to_the_first(tmp_path, ledger, smtp):
    inbox, port = smtp
    clock = Clock()
    with Desk.from_file(shop(tmp_path, REMIND_THEN_ESCALATE), storage="memory://", clock=clock) as desk:
        desk.on_interrupt = Channels([Mail(config(port), {}, channel_cards(desk), None, clock=clock)])
        desk.storage.own("t", ALICE.key)
        [pause] = desk.send("t", "charge 40 to order 4411").waiting
        for _ in range(3):
            clock.later(3600 + 1)
            tick(desk)
        receipt = present(present(desk.storage.get_pause(pause.id)).delivery)["receipts"]["mail"]
    first, reminder, overdue, second = inbox.messages()
    subjects = [m["Subject"].split(":")[0] for m in inbox.messages()]
    assert subjects == ["Waiting for your decision", "Reminder", "Overdue", "Reminder"]
    assert len({m["Message-ID"] for m in inbox.messages()}) == 4
    for later in (reminder, overdue, second):
        assert later["In-Reply-To"] == later["References"] == first["Message-ID"]
        assert later["Subject"].endswith(": Charge 40.00 EUR to order 4411")
    assert "the managers may answer now too" in parts(overdue)[0]
    assert receipt["message_id"] == second["Message-ID"] and receipt["first_message_id"] == first["Message-ID"]
