"""The pages behind a signed link: ``GET /links/{link}`` shows what it would answer, ``POST`` answers it.

Mail scanners and chat unfurlers fetch every link they see, so a GET never
acts: it shows the call, its arguments with their origins, why it asks, and one
button, a form with no fields that posts back to the same address.  The POST
answers through the door with the pause's own token, so the pause's claim
decides a race between a link and the chat as it decides any other.

Without authentication, or with ``alone`` (the team's choice, see docs/links.md),
the link is the approval: it answers as a principal of its own, which stands for
the thread's owner.  Otherwise the page asks the person to sign in, and a POST
answers as the bearer of its token.  Every page is plain HTML under the service's
policy, needs no script, and never shows the link, the token or the thread.
"""

from __future__ import annotations

import base64
import hashlib
import html
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from fastapi import Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from ..approvals.admission import Admission
from ..approvals.links import PATH, Link, Links
from ..approvals.principal import Principal
from ..approvals.rules import LINK_ISSUER, owner_of
from ..door import Door
from ..engine.answer import Answer
from ..engine.pause import Pause, canonical, iso
from ..engine.reply import Reply
from ..errors import LinkExpired, NotALink, NotFound, StalwartError, Unauthorized
from ..storage.base import PauseRecord
from .auth import Auth, NoAuth
from .declare import Declare
from .edge import SECURE
from .threads import seen_by

__all__ = ["declare_links", "link_principal"]

USED = ("interrupt_stale", "pause_closed", "already_approved")
"""The codes of an answer refused because the pause was answered already (or this link's approval counted)."""
LABELS = {
    "approve": "Approve",
    "skip": "Skip this step",
    "cancel_all": "Cancel everything",
    "happened": "Yes, it happened",
    "did_not_happen": "No, it did not",
    "retry": "Try again",
    "done_by_hand": "I undid it myself",
    "abandon": "Leave it",
    "decline": "No",
}
"""Each answer's button, in the interface's shipped strings (a test holds them to ``frontend/src/strings.js``)."""
HEADERS = {"Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow", "Referrer-Policy": "same-origin"}
"""``same-origin``, not the service's ``no-referrer``: under that, a browser posts the page's own form with
``Origin: null``, which the boundary refuses; the link (a capability) still never leaves in a Referer."""
STYLE = (
    ":root{color-scheme:light dark;font:16px/1.5 system-ui,sans-serif}"
    "main{max-width:40rem;margin:2rem auto;padding:0 1rem}h1{font-size:1.5rem}"
    "table{border-collapse:collapse;margin:.5rem 0}caption{text-align:left;font-weight:600}"
    "th,td{text-align:left;padding:.25rem .75rem .25rem 0;vertical-align:top}td:nth-child(2){font-family:monospace}"
    ".warning{border-left:4px solid #b3261e;padding:.5rem .75rem;background:rgb(179 38 30 / .08)}"
    "button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #0b57d0;"
    "background:#0b57d0;color:#fff;cursor:pointer}button:focus-visible{outline:3px solid #7cacf8;outline-offset:2px}"
)
"""The pages' one stylesheet, inline: allowed by its hash alone (``CSP``), so nothing else inline may run or style."""
CSP = SECURE["Content-Security-Policy"].replace(
    "style-src 'self'", f"style-src 'sha256-{base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()}'"
)
ORIGINS = {
    "typed": "you typed it",
    "reply": "you answered it",
    "context": "from your account",
    "computed": "calculated",
    "model": "the assistant wrote it",
    "result": "from an earlier step",
    "agent": "from another assistant",
}
"""Where a value came from, in the interface's words (its shipped strings)."""
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex, nofollow"><style>{style}</style></head>
<body><main><h1>{title}</h1>
{body}
</main></body></html>
"""

log = logging.getLogger(__name__)


def link_principal(pause: str, decision: str) -> Principal:
    """Who answers through a link that carries the approval alone: the link itself, for its pause and decision."""
    return Principal(issuer=LINK_ISSUER, subject=f"{pause}:{decision}", claims={"link": True}, verified=False)


def declare_links(route: Declare, door: Door, links: Links, auth: Auth, *, alone: bool = False) -> None:
    """``GET`` and ``POST /links/{link}``, where the ``links`` route is served.

    ``alone`` lets a link answer without signing in where ``auth`` would otherwise ask for it.
    """
    pages = _LinkPages(door, links, auth, signing_in=not alone and not isinstance(auth, NoAuth))

    @route("links", "GET", f"{PATH}{{link}}", response_class=HTMLResponse, summary="What a signed link answers")
    async def show(link: str) -> HTMLResponse:
        return await run_in_threadpool(pages.respond, link, pages.show)

    @route(
        "links",
        "POST",
        f"{PATH}{{link}}",
        named="links_answer",
        response_class=HTMLResponse,
        summary="Answer by a signed link",
    )
    async def answer(link: str, request: Request) -> HTMLResponse:
        return await run_in_threadpool(pages.respond, link, partial(pages.answer, request=request))


@dataclass(frozen=True)
class _Found:
    """A genuine, unexpired link and the pause it names, whose token is still the one it was minted for."""

    link: Link
    pause: PauseRecord


class _LinkPages:
    def __init__(self, door: Door, links: Links, auth: Auth, *, signing_in: bool) -> None:
        self.door, self.links, self.auth, self.signing_in = door, links, auth, signing_in

    def respond(self, link: str, act: Callable[[_Found], HTMLResponse]) -> HTMLResponse:
        """``act`` on what the link names, or the page that says why not.

        An unexpected failure is logged here, without the request's path, which is the link.
        """
        try:
            return self._respond(link, act)
        except Exception:
            log.exception("unexpected error on a link page")
            return _page("Something went wrong", _p("The service failed on this link; its log has the details."), 500)

    def _respond(self, link: str, act: Callable[[_Found], HTMLResponse]) -> HTMLResponse:
        try:
            found = self.found(link)
        except StalwartError as exc:
            return self.refused(exc, None)
        try:
            return act(found)
        except StalwartError as exc:
            return self.refused(exc, found.pause.id)

    def show(self, found: _Found) -> HTMLResponse:
        """Never acts: a prefetch by a scanner or an unfurler leaves the pause as it was."""
        if not self.is_open(found.pause):
            return self.used(found.pause, "interrupt_stale")
        pause = Pause.from_record(found.pause)
        label = _label(found.link.decision)
        if self.signing_in:
            action = _p(f"To {html.escape(label.lower())}, sign in: it waits in {self.inbox()}.")
        else:
            action = f'<form method="post"><button type="submit">{html.escape(label)}</button></form>'
        expires = _p(f"This link answers once, until {html.escape(iso(found.link.expires))}.")
        return _page(f"{label}: {pause.tool}?", "\n".join([_described(pause), action, expires]))

    def answer(self, found: _Found, *, request: Request) -> HTMLResponse:
        decision, pause = found.link.decision, found.pause
        who = self.auth.principal(request) if self.signing_in else link_principal(pause.id, decision)
        admitted = self.admitted(pause, who)
        answer = Answer.of(decision, None, pause.token, "link", admitted)
        reply = self.door.answer(admitted, answer, pause.id)
        answered = _p(f"You answered: {html.escape(_label(decision))}.")
        return _page("Answer taken", answered + _result(seen_by(self.door, reply, admitted), pause.id))

    def admitted(self, pause: PauseRecord, who: Principal) -> Admission:
        """The link let its bearer in: the capability is the admission, judged by the pause's rules as it answers."""
        return Admission(pause.thread, who, owner_of(self.door.storage, pause.thread))

    def found(self, link: str) -> _Found:
        read = self.links.read(link)
        stored = self.door.storage.get_pause(read.pause)
        if stored is None or not read.matches(stored.token) or read.decision not in Pause.from_record(stored).answers:
            raise NotALink("this link names nothing that waits here")
        return _Found(read, stored)

    def is_open(self, pause: PauseRecord) -> bool:
        if pause.status != "open":
            return False
        standing_in = Admission(pause.thread, link_principal(pause.id, ""), owner_of(self.door.storage, pause.thread))
        return any(p.id == pause.id for p in self.door.waiting_for(standing_in))

    def inbox(self) -> str:
        return f'<a href="{html.escape(self.links.base, quote=True)}/inbox">your inbox</a>'

    def refused(self, exc: StalwartError, pause: str | None) -> HTMLResponse:
        """The page for an error: what the person can do about it, in the error's status."""
        stored = self.door.storage.get_pause(pause) if pause is not None and exc.code in USED else None
        if stored is not None:
            return self.used(stored, exc.code)
        if isinstance(exc, NotALink | NotFound):
            return _page("This link does not work", _p("It is not a link this service made, or it was changed."), 404)
        if isinstance(exc, LinkExpired):
            return _page("This link has expired", _p(html.escape(exc.message)), 410)
        if isinstance(exc, Unauthorized):
            return _page("Sign in to answer", _p(f"This answer needs you signed in: answer from {self.inbox()}."), 401)
        return _page("This answer was not taken", _p(html.escape(exc.message)), exc.status)

    def used(self, pause: PauseRecord, code: str) -> HTMLResponse:
        """409: what was decided, where the pause says; a counted approval says it waits for someone else's."""
        if code == "already_approved":
            sentence = "The approval this link gives is already counted; the call waits for another person's."
            return _page("Already approved", _p(sentence), 409)
        answered = pause.answer or {}
        decided = ""
        if isinstance(answered.get("decision"), str):
            at = answered.get("at")
            when = f" at {iso(at)}" if isinstance(at, int | float) else ""
            decided = f" ({_label(answered['decision']).lower()}{when})"
        said = f"This was already answered{decided}, and this link can no longer be used."
        return _page("Already answered", _p(html.escape(said)), 409)


def _described(pause: Pause) -> str:
    """The call as a person decides on it: the question, the arguments and their origins, the reasons."""
    rows = "".join(
        f'<tr><th scope="row">{html.escape(a["name"])}</th><td>{html.escape(_shown(a["value"]))}</td>'
        f"<td>{html.escape(_origin(a['origin']))}</td></tr>"
        for a in pause.arguments
    )
    table = (
        '<table><caption>Arguments</caption><thead><tr><th scope="col">Argument</th><th scope="col">Value</th>'
        f'<th scope="col">Where it came from</th></tr></thead><tbody>{rows}</tbody></table>'
        if rows
        else ""
    )
    warning = '<p class="warning"><strong>Nothing can undo this step once it runs.</strong></p>'
    parts = [warning if pause.irreversible else "", _p(html.escape(pause.question))]
    parts += [f"<p>The call: <code>{html.escape(pause.tool)}</code></p>", table]
    if pause.reasons:
        parts.append(f"<h2>Why it asks</h2>{_list(pause.reasons)}")
    return "\n".join(part for part in parts if part)


def _result(reply: Reply, pause: str) -> str:
    """What the answer did: the agent's words, each call's outcome, and whether the pause still waits."""
    parts = [_p(html.escape(reply.text))] if reply.text else []
    if reply.steps:
        parts.append(f"<h2>Calls</h2>{_list(f'{step.tool}: {step.status}' for step in reply.steps)}")
    if any(waiting.id == pause for waiting in reply.waiting):
        parts.append(_p("Your approval is counted; the call waits for another person's before it runs."))
    elif reply.waiting:
        parts.append(_p("Something else now waits for an answer; it is sent to you as this was."))
    return "\n".join(parts)


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    page = PAGE.format(title=html.escape(title), body=body, style=STYLE)
    return HTMLResponse(page, status, {**SECURE, **HEADERS, "Content-Security-Policy": CSP})


def _label(decision: str) -> str:
    return LABELS.get(decision, decision.replace("_", " ").capitalize())


def _origin(origin: str) -> str:
    """``result:2.1`` is from an earlier step, as ``result`` is."""
    return ORIGINS.get(origin.split(":", 1)[0], origin)


def _shown(value: object) -> str:
    return value if isinstance(value, str) else canonical(value)


def _p(escaped: str) -> str:
    return f"<p>{escaped}</p>"


def _list(items: Iterable[str]) -> str:
    return "<ul>" + "".join(f"<li>{html.escape(item)}</li>" for item in items) + "</ul>"
