"""A card as a page of its own: the link page's HTML, rendered on the server from the one card model.

Every word is the card's: the team's own (title, labels, values in their units) or
the interface's shipped strings (``approvals/strings.py``), so the page says what
the chat's card says for the same pause.  Plain HTML under the service's policy,
one inline stylesheet allowed by its hash, no script; themed as the interface is
(its custom properties' light and dark defaults), and laid out for a phone first.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Iterable

from starlette.responses import HTMLResponse

from ..approvals.card import Answer, Argument, Card
from ..approvals.strings import Said, read, said, say
from ..engine.reply import CallOutcome
from ..tools.python import shown_value
from ..vocabulary import JSON
from .edge import SECURE

STYLE = (
    ":root{color-scheme:light dark;--bg:#fff;--fg:#1a1a1a;--muted:#595959;--line:#d0d0d0;--accent:#0b57d0;"
    "--accent-fg:#fff;--warn:#8a4b00;--bad:#b3261e;font:16px/1.5 system-ui,sans-serif;background:var(--bg);"
    "color:var(--fg)}"
    "@media (prefers-color-scheme:dark){:root{--bg:#121212;--fg:#f1f1f1;--muted:#bdbdbd;--line:#3c3c3c;"
    "--accent:#8ab4f8;--accent-fg:#0b0b0b;--warn:#ffb74d;--bad:#f28b82}}"
    "body{margin:0}main{max-width:40rem;margin:0 auto;padding:1.25rem 1rem 2rem}"
    "h1{font-size:1.4rem;line-height:1.3;margin:.25rem 0 .5rem}h2{font-size:1rem;margin:1.25rem 0 .25rem}"
    ".meta{color:var(--muted);margin:.25rem 0}.decide{font-weight:600}"
    "dl{margin:.75rem 0;border-top:1px solid var(--line)}"
    "dl div{display:grid;grid-template-columns:minmax(7rem,35%) 1fr;gap:.25rem 1rem;padding:.5rem 0;"
    "border-bottom:1px solid var(--line)}dt{color:var(--muted)}dd{margin:0;font-weight:600;overflow-wrap:anywhere}"
    "dd small,li small{display:block;font-weight:400;color:var(--muted);overflow-wrap:anywhere}"
    "ul{padding-left:1.25rem;margin:.25rem 0}li{margin:.25rem 0}"
    ".warning{border-left:4px solid var(--bad);padding:.5rem .75rem;margin:.5rem 0;font-weight:600}"
    ".waits{border-left:4px solid var(--warn);padding:.5rem .75rem;margin:.75rem 0}"
    ".deadline{border-left:4px solid var(--line);padding:.25rem .75rem;margin:.75rem 0 .25rem;font-weight:600}"
    ".deadline+.meta{padding-left:calc(.75rem + 4px)}"
    ".called{font-weight:600;margin:.5rem 0}"
    ".ended{border-left:4px solid var(--muted);padding:.5rem .75rem;margin:.75rem 0;font-weight:600}"
    "form{margin:1.25rem 0 .5rem}button{font:inherit;font-weight:600;min-height:44px;width:100%;padding:.6rem 1.25rem;"
    "border-radius:8px;border:2px solid var(--accent);background:var(--accent);color:var(--accent-fg);"
    "cursor:pointer}button.secondary{background:transparent;color:var(--accent)}"
    "button.danger{background:var(--bad);border-color:var(--bad);color:var(--bg)}"
    "button:focus-visible{outline:3px solid var(--fg);outline-offset:2px}"
    "a.go{display:inline-block;margin:.5rem 0;font-weight:600;color:var(--accent)}"
    "@media (min-width:40rem){button{width:auto}}"
)
"""The pages' one stylesheet, inline: allowed by its hash alone (``CSP``), so nothing else inline may run or style."""
CSP = SECURE["Content-Security-Policy"].replace(
    "style-src 'self'", f"style-src 'sha256-{base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()}'"
)
HEADERS = {"Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow", "Referrer-Policy": "same-origin"}
"""``same-origin``, not the service's ``no-referrer``: under that, a browser posts the page's own form with
``Origin: null``, which the boundary refuses; the link (a capability) still never leaves in a Referer."""
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex, nofollow"><style>{style}</style></head>
<body><main>
{body}
</main></body></html>
"""
RECORDS = {
    "approve": "recordApprove",
    "skip": "recordSkip",
    "cancel_all": "recordCancelAll",
    "happened": "recordHappened",
    "did_not_happen": "recordDidNotHappen",
    "retry": "recordRetry",
    "done_by_hand": "recordDoneByHand",
    "abandon": "recordAbandon",
    "decline": "recordDecline",
}
"""The record of each decision, from the side of the person who gave it."""


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    shown = PAGE.format(title=html.escape(title), body=body, style=STYLE)
    return HTMLResponse(shown, status, {**SECURE, **HEADERS, "Content-Security-Policy": CSP})


def card_html(card: Card, action: str) -> str:
    """The card, whole: the irreversible warning first, the call, who asked and who decides, by when to answer and
    who else is asked, what it will use and where each value came from, why it asks, what this reader cannot give
    and why; then ``action``."""
    parts = [_p(say(said("irreversible")), "warning") if card["irreversible"] else ""]
    parts.append(f"<h1>{_e(card['title'])}</h1>")
    if card["question"] and card["question"].rstrip("?") != card["title"]:
        parts.append(_p(_e(card["question"])))
    parts.append(_p(_words(card["asked"]), "meta"))
    if card["deciders"] is not None:
        parts.append(_p(_words(card["deciders"]), "meta decide"))
    if (deadline := card.get("deadline")) is not None:
        parts.append(_p(_words(deadline), "deadline"))
    if (escalation := card.get("escalation")) is not None:
        parts.append(_p(_words(escalation), "meta"))
    if card["arguments"]:
        parts.append(
            f"<h2>{_words(said('argumentsTitle'))}</h2><dl>{''.join(_argument(a) for a in card['arguments'])}</dl>"
        )
    if card["reasons"]:
        parts.append(f"<h2>{_words(said('reasonsTitle'))}</h2>{_list(say(r) for r in card['reasons'])}")
    if card["waits_for"] is not None:
        parts.append(_p(_words(card["waits_for"]), "waits"))
    parts.append(action)
    return "\n".join(part for part in parts if part)


def button(answer: Answer) -> str:
    """One answer as a form with no fields that posts back to the same address, styled as the decision is."""
    return (
        f'<form method="post"><button type="submit" class="{answer["style"]}">{_words(answer["words"])}</button></form>'
    )


def taken(decision: str, title: str, steps: list[CallOutcome], titles: dict[str, str], still: bool) -> str:
    """What an answer did, in words: the record of the decision, each call's outcome with its result, and whether
    the pause still waits (another approval needed) or something new does."""
    parts = [_p(_words(said(RECORDS.get(decision, "recordOther"), title=title, decision=decision)))]
    if steps:
        outcomes = (_outcome(step, titles.get(step.tool, step.tool)) for step in steps)
        parts.append(f"<h2>{_words(said('outcomeTitle'))}</h2><ul>{''.join(outcomes)}</ul>")
    if still:
        parts.append(_p(_words(said("outcomeCounted"))))
    return "\n".join(parts)


def expired_html(title: str, ended: Said) -> str:
    """A pause nobody answered in time (``card.expired_of``): that the request expired, the call it was about, when
    it ended and what the run did instead, and that nothing was done with this link."""
    if ended["values"].get("when") is None:
        ended = said("outcome_expired", title=title)
    parts = [f"<h1>{words('requestExpired')}</h1>", _p(_e(title), "called"), _p(_words(ended), "ended")]
    return "\n".join([*parts, _p(words("linkNothingDone"))])


def words(key: str, **values: object) -> str:
    """A shipped string, filled and escaped for the page."""
    return _words(said(key, **values))


def say_key(key: str, **values: object) -> str:
    """A shipped string, filled, not escaped: for a title, which ``page`` escapes."""
    return say(said(key, **values))


def _outcome(step: CallOutcome, title: str) -> str:
    sentence = _e(say(said(f"outcome_{step.status}", title=title)))
    detail = step.error if step.status == "failed" else None if step.result is None else _result(step.result)
    shown = f"<small>{_e(detail[:300])}</small>" if detail else ""
    return f"<li>{sentence}{shown}</li>"


def _result(result: JSON) -> str:
    """A call's result as a line a person scans: each field and its value, where it has fields."""
    if isinstance(result, dict):
        return " · ".join(f"{name}: {shown_value(value)}" for name, value in result.items())
    return shown_value(result)


def _argument(argument: Argument) -> str:
    origin = _words(argument["origin"])
    if "source" in argument:
        origin += " · " + words("origin_from", tool=argument["source"]["title"])
    if "asked" in argument:
        origin = words("editAsked", shown=argument["asked"]["shown"]) + " · " + origin
    shown = f"{_e(argument['shown'])}<small>{origin}</small>"
    return f"<div><dt>{_e(argument['label'])}</dt><dd>{shown}</dd></div>"


def _words(words: Said) -> str:
    return _e(read(words))


def _e(text: str) -> str:
    return html.escape(text)


def _p(escaped: str, css: str = "") -> str:
    return f'<p class="{css}">{escaped}</p>' if css else f"<p>{escaped}</p>"


def _list(items: Iterable[str]) -> str:
    return "<ul>" + "".join(f"<li>{_e(item)}</li>" for item in items) + "</ul>"
