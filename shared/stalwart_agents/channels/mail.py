"""Mail as a channel: each event of a pause sent as one message, the card in text and HTML with its signed links.

    MailError ... the SMTP server refused the message, or could not be reached or secured: one line, its reply

Each event (the first announcement, each reminder, the escalation) is one message
to ``to`` from ``sender``, its subject saying which; a reminder or escalation
replies to the first message (``In-Reply-To``, ``References``), so a mail client
keeps them in one conversation.  The card is rendered as the link page renders it
(``http/card_page.py``), every value escaped, with one signed link per answer as
the only way to act; an ask, whose answer a link cannot hold, or a service without
a public address, says to answer in the app.

Credentials go only over STARTTLS, with the server's certificate verified; a
server on loopback may be told ``starttls: false``.  A send that fails raises, so
``Channels`` reports it in ``not_notified`` and redelivery sends it again.

A message cannot be unsent or edited, so ``settle`` does nothing: a link followed
after the pause was answered opens a page that says who answered and when (the
link page), which is what the message would otherwise be changed to say.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import logging
import smtplib
import ssl
import time
from collections.abc import Callable, Mapping
from email.message import EmailMessage
from email.utils import formatdate, getaddresses, parseaddr
from typing import TYPE_CHECKING, Any

from .. import telemetry
from ..approvals.card import Card
from ..approvals.strings import Said, read, said, shipped
from ..config import MailConfig, SmtpConfig
from ..engine.deadline import events
from ..engine.pause import Pause
from ..errors import ConfigError, StalwartError
from ..http.boundary import LOOPBACK_HOSTS
from ..http.card_page import PAGE, STYLE, card_html

if TYPE_CHECKING:
    from . import Receipt  # the package imports this module where agent.yaml names mail

__all__ = ["Mail", "MailError"]

log = logging.getLogger("stalwart_agents.channels.mail")

SUBJECT = 200
"""Characters of a subject at most: a title is a sentence, not a page."""
REPLY = 300
"""Characters of a server's reply kept in an error: enough for its code and its reason."""


class MailError(StalwartError):
    """A message was not sent; the one-line message names the server (host and port) and what it answered."""

    code = "not_mailed"
    status = 502


class Mail:
    """A ``Channel`` that mails each event of a pause, as its card with a signed link per answer.

    ``cards`` gives the card a channel's reader sees; ``links`` the signed link per answer (None: the service has no
    public address, and the message says to answer in the app).  ``tls`` is what verifies the server's certificate
    (the system's authorities by default).
    """

    name = "mail"

    def __init__(
        self,
        config: MailConfig,
        environ: Mapping[str, str],
        cards: Callable[[Pause], Card],
        links: Callable[[Pause], dict[str, str]] | None = None,
        *,
        tls: ssl.SSLContext | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config, self.smtp = config, config.smtp
        self.server = _server(self.smtp)
        self._login = _credentials(self.smtp, environ)
        if self._login is not None and not self.smtp.starttls and self.smtp.host not in LOOPBACK_HOSTS:
            raise ConfigError(
                f"credentials are sent only over STARTTLS; starttls: false is for a server on loopback, "
                f"not {self.smtp.host}",
                key="channels.mail.smtp.starttls",
            )
        self._cards, self._links, self._clock = cards, links, clock
        self._tls = tls if tls is not None else ssl.create_default_context()
        self._domain = parseaddr(config.sender)[1].rpartition("@")[2] or "stalwart.invalid"

    def announce(self, pause: Pause, receipt: Receipt | None) -> Receipt:
        """Mail this event of ``pause``; a reminder or escalation replies to the first message ``receipt`` names.
        The receipt: this message's id, the first's, and the addresses that refused it where others took it."""
        with telemetry.current().delivery("mail", pause):
            return self._announce(pause, receipt)

    def _announce(self, pause: Pause, receipt: Receipt | None) -> Receipt:
        first = (receipt or {}).get("first_message_id")
        first = first if isinstance(first, str) else None
        message = self.message(pause, first)
        refused = self._send(message)
        sent_id = str(message["Message-ID"])
        sent: Receipt = {"message_id": sent_id, "first_message_id": first or sent_id}
        if refused:
            log.warning("mail of pause %s refused for %s", pause.id, "; ".join(refused))
            sent["refused"] = list(refused)
        return sent

    def settle(self, pause: Pause, answer: Mapping[str, Any] | None, receipt: Receipt) -> None:
        """Nothing: a mail cannot be unsent or changed.  Its links, followed late, say who answered and when."""
        return None

    def message(self, pause: Pause, first: str | None = None) -> EmailMessage:
        """The message for the event of ``pause`` its clock is at, the card in text and HTML (multipart/alternative),
        replying to ``first`` where given."""
        card = self._cards(pause)
        links = self._links(pause) if self._links is not None else {}
        subject = _line(_say(said(_event(pause), title=card["title"])))[:SUBJECT]
        message = EmailMessage()
        message["Subject"] = subject
        message["From"] = self.config.sender
        message["To"] = ", ".join(self.config.to)
        message["Date"] = formatdate(self._clock(), usegmt=True)
        message["Message-ID"] = self._message_id(pause)
        if first is not None and first != message["Message-ID"]:
            message["In-Reply-To"] = first
            message["References"] = first
        message["Auto-Submitted"] = "auto-generated"
        message["X-Auto-Response-Suppress"] = "All"
        message.set_content(text_of(card, links))
        message.add_alternative(html_of(card, links, subject), subtype="html")
        return message

    def _message_id(self, pause: Pause) -> str:
        """One id per event of a pause, the same on every attempt: a client that gets a retry twice shows it once."""
        digest = hashlib.sha256(f"{pause.id}#{pause.woken}".encode()).hexdigest()[:32]
        return f"<{digest}.stalwart@{self._domain}>"

    def _send(self, message: EmailMessage) -> list[str]:
        """Send ``message`` to every address of ``to``; those that refused it where some took it.  MailError where
        none took it, naming what the server answered."""
        to = [address for _, address in getaddresses(list(self.config.to))]
        try:
            with contextlib.closing(smtplib.SMTP(self.smtp.host, self.smtp.port, timeout=self.smtp.timeout)) as smtp:
                if self.smtp.starttls:
                    smtp.starttls(context=self._tls)
                if self._login is not None:
                    smtp.login(*self._login)
                refused = smtp.send_message(message, to_addrs=to)
                _quit(smtp)
        except (smtplib.SMTPException, OSError) as exc:
            raise MailError(self._said(exc)) from exc
        return [f"{address}: {_reply(code, answer)}" for address, (code, answer) in refused.items()]

    def _said(self, exc: BaseException) -> str:
        """One line naming the server and what it answered: never the password, which no reply should echo."""
        text = f"mail via {self.server} not sent: {_cause(exc)}"
        if self._login is not None and self._login[1]:
            text = text.replace(self._login[1], "***")
        return text

    def __repr__(self) -> str:
        return f"Mail({self.server!r}, to={list(self.config.to)!r})"


def text_of(card: Card, links: Mapping[str, str]) -> str:
    """The card as plain text, in the order the link page shows it, then one line per answer with its link (or that
    it is answered in the app).  Each value on one line, so none can pass for a line of the message's own."""
    lines = [_say(said("irreversible"))] if card["irreversible"] else []
    lines.append(_line(card["title"]))
    if card["question"] and card["question"].rstrip("?") != card["title"]:
        lines.append(_line(card["question"]))
    lines.append(_words(card["asked"]))
    for words in (card["deciders"], card.get("deadline"), card.get("escalation")):
        if words is not None:
            lines.append(_words(words))
    if card["arguments"]:
        lines += ["", _words(said("argumentsTitle"))]
        for argument in card["arguments"]:
            origin = _words(argument["origin"])
            if "source" in argument:
                origin += " · " + _words(said("origin_from", tool=argument["source"]["title"]))
            if "asked" in argument:
                origin = _words(said("editAsked", shown=argument["asked"]["shown"])) + " · " + origin
            lines.append(f"- {_line(argument['label'])}: {_line(argument['shown'])} ({origin})")
    if card["reasons"]:
        lines += ["", _words(said("reasonsTitle")), *(f"- {_words(reason)}" for reason in card["reasons"])]
    if card["waits_for"] is not None:
        lines += ["", _words(card["waits_for"])]
    actions = _actions(card, links)
    lines.append("")
    lines += [f"{_words(words)}: {url}" for words, url in actions] if actions else [_words(said("linkSignIn"))]
    return "\n".join(lines) + "\n"


def html_of(card: Card, links: Mapping[str, str], title: str) -> str:
    """The card as the link page renders it, every value escaped, with one link per answer where its form would be."""
    actions = [
        f'<p><a class="go" href="{html.escape(url)}">{_html(words)}</a></p>' for words, url in _actions(card, links)
    ]
    shown = "".join(actions) or f"<p>{_html(said('linkSignIn'))}</p>"
    return PAGE.format(title=html.escape(title), body=card_html(card, shown), style=STYLE)


def _actions(card: Card, links: Mapping[str, str]) -> list[tuple[Said, str]]:
    """Each answer the card offers that has a link: its words and the link."""
    return [(answer["words"], links[answer["decision"]]) for answer in card["answers"] if answer["decision"] in links]


def _event(pause: Pause) -> str:
    """Which event of the pause this is, as the key of its subject: the first announcement, a reminder, the
    escalation (the clock's latest event, which a reminder may follow)."""
    if pause.woken <= 0:
        return "mailNew"
    happened = events(pause.deadline)[: pause.woken]
    latest = happened[-1].what if happened else "remind"
    return "mailOverdue" if latest == "escalate" else "mailReminder"


def _say(words: Said) -> str:
    return read(words, shipped())


def _words(words: Said) -> str:
    return _line(_say(words))


def _html(words: Said) -> str:
    return html.escape(_words(words))


def _line(text: str) -> str:
    """``text`` on one line: a value's line ends (and a header's) become spaces."""
    return " ".join(text.split())


def _server(smtp: SmtpConfig) -> str:
    host = f"[{smtp.host}]" if ":" in smtp.host else smtp.host
    return f"{host}:{smtp.port}"


def _credentials(smtp: SmtpConfig, environ: Mapping[str, str]) -> tuple[str, str] | None:
    """The username and password the environment holds, read now; None where the server takes none."""
    if (smtp.username is None) != (smtp.password is None):
        raise ConfigError("give both username and password, or neither", key="channels.mail.smtp")
    if smtp.username is None or smtp.password is None:
        return None
    values: list[str] = []
    for given in (smtp.username, smtp.password):
        value = environ.get(given.env)
        if not value:
            raise ConfigError(f"the environment variable {given.env} is not set", key="channels.mail.smtp")
        values.append(value)
    return values[0], values[1]


def _cause(exc: BaseException) -> str:
    """What went wrong, in the server's words where it answered, else the system's: one line."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        replies = {address: _reply(code, answer) for address, (code, answer) in exc.recipients.items()}
        if len(set(replies.values())) == 1:
            return f"every recipient refused: {next(iter(replies.values()))}"
        return "every recipient refused: " + "; ".join(f"{address}: {reply}" for address, reply in replies.items())
    if isinstance(exc, smtplib.SMTPResponseException):
        return _reply(exc.smtp_code, exc.smtp_error)
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return f"{_line(str(exc))} (nothing was sent)"
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return "timed out" if _timed_out(exc) else "the server closed the connection"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"its TLS certificate is not trusted: {exc.verify_message}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed: {exc.reason or type(exc).__name__}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return _line(str(exc)) or type(exc).__name__


def _timed_out(exc: BaseException) -> bool:
    """Whether a timeout is what ended the connection (smtplib says so as a disconnection)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, TimeoutError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _reply(code: int, answer: bytes | str) -> str:
    """What a server answered, on one line: its code and its words."""
    text = answer.decode("utf-8", "replace") if isinstance(answer, bytes) else answer
    return _line(f"{code} {text}")[:REPLY]


def _quit(connection: smtplib.SMTP) -> None:
    """Say goodbye after a send: a message the server took stays taken whatever QUIT answers."""
    with contextlib.suppress(smtplib.SMTPException, OSError):
        connection.quit()
