"""The interface's shipped strings, for what the server says itself: the link page, a channel's message.

They are the web components' own table (``frontend/src/strings.js``), which the
front end's build writes into the package as ``static/strings.json``, so a pause
reads the same on a link page, in Slack and in the chat.  ``say`` fills ``{name}``
as the components' ``format`` does.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any, TypedDict


class Said(TypedDict):
    """Words by their key in the strings, and the values that fill them: a surface says them in its own strings."""

    key: str
    values: dict[str, Any]


def said(key: str, **values: Any) -> Said:
    return {"key": key, "values": values}


@cache
def shipped() -> Mapping[str, str]:
    """The strings as shipped, read once per process."""
    text = resources.files("stalwart_agents").joinpath("static", "strings.json").read_text(encoding="utf-8")
    loaded: dict[str, str] = json.loads(text)
    return loaded


def say(words: Said, strings: Mapping[str, str] | None = None) -> str:
    """The words in ``strings`` (the shipped ones by default), each ``{name}`` filled; a name without a value stays
    as written, and a key the table lacks is said as itself, as the components do."""
    table = shipped() if strings is None else strings
    text = table.get(words["key"], words["key"])
    values = words["values"]
    return _FIELD.sub(lambda m: m.group(0) if values.get(m.group(1)) is None else str(values[m.group(1)]), text)


def read(words: Said, strings: Mapping[str, str] | None = None) -> str:
    """The words as ``say`` says them, a moment among their values (an ISO time, ``when``) written as ``when`` does:
    for a surface the server renders itself (a link page, a channel's message), which has no reader's locale."""
    values = {k: _moment(v) if k == "when" else v for k, v in words["values"].items()}
    return say({"key": words["key"], "values": values}, strings)


def when(at: float) -> str:
    """A moment as a person reads it on any device: the day, the time, and that it is UTC (1 Dec 2026, 16:26 UTC)."""
    moment = time.gmtime(at)
    return f"{moment.tm_mday} {time.strftime('%b %Y, %H:%M', moment)} UTC"


def _moment(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return when(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return value


_FIELD = re.compile(r"\{(\w+)\}")
