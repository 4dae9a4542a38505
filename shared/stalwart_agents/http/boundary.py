"""The browser boundary: what a hostile page in the person's own browser cannot make the service do.

A service on 127.0.0.1 is reachable from every page the person has open.  So,
before any route runs:

- the ``Host`` must be one the service answers for, which defeats DNS rebinding
  (a page whose own name now resolves to 127.0.0.1);
- a request from another origin (its ``Origin``, or ``Sec-Fetch-Site: cross-site``)
  is refused unless the team listed that origin, and only listed origins get CORS;
- a body sent to change something must say it is JSON, which a browser never
  sends cross-site without a preflight, and that preflight fails for an unlisted origin
  (an empty body carries nothing to forge, so a bare POST needs no type).

A path listed as ``signed`` (Slack's clicks, ``/slack/actions``) takes POSTs from a
server that signs them itself, in its own format (a form), from no browser origin:
only the Host is checked there, and the route refuses anything its sender did not sign
before it reads it.  No page can forge that signature, so no page can act through it.

Plain GETs of the public pages (the interface, its script, the inbox, health,
config, and a signed link's confirmation page) are left alone, so a link from a
mail or a chat still opens them; a public path ending in ``/*`` stands for every
path under it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from starlette.responses import JSONResponse
from starlette.types import Scope

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
_HOST = re.compile(r"(?:\[([0-9a-f:.]+)\]|([a-z0-9.-]+))(?::[0-9]{1,5})?")
SAFE = ("GET", "HEAD")
JSON_TYPES = ("application/json",)


class Boundary:
    """The checks, made once per request by the edge's one pass (``crossing.py``) from the headers it picked out."""

    def __init__(
        self,
        *,
        hosts: Collection[str],
        origins: Collection[str],
        public: Collection[str],
        signed: Collection[str] = (),
    ) -> None:
        self.signed = frozenset(signed)
        self.hosts = {h.lower().strip("[]") for h in hosts}
        self.origins = {o.lower().rstrip("/") for o in origins}
        self.public = frozenset(p for p in public if not p.endswith("/*"))
        self.public_under = tuple(p.removesuffix("*") for p in public if p.endswith("/*"))

    def refusal(self, scope: Scope, headers: Mapping[str, str]) -> JSONResponse | None:
        """The answer refusing the request, or None to let it through; ``headers`` holds (at least) the first value
        of each header read here, by its lowercase name."""
        host = headers.get("host", "")
        if "*" not in self.hosts and _hostname(host) not in self.hosts:
            return _refuse(
                400,
                "bad_request",
                "this service does not answer for that Host; list the name with --allowed-host (allowed_hosts=)",
            )
        method, path = scope["method"], scope.get("path", "")
        if method in SAFE and (path in self.public or path.startswith(self.public_under)):
            return None
        if method == "POST" and path in self.signed:  # its route checks its sender's signature before all else
            return None
        origin = headers.get("origin")
        if origin is not None:
            if origin.lower().rstrip("/") not in self.origins and _netloc(origin) != host.lower():
                return _refuse(
                    403,
                    "forbidden",
                    "requests from that origin are refused; list it with --allowed-origin (allowed_origins=)",
                )
        elif headers.get("sec-fetch-site") == "cross-site":
            return _refuse(403, "forbidden", "requests from another site are refused")
        if (
            method not in SAFE
            and method != "OPTIONS"
            and _has_body(scope, headers)
            and not _json(headers.get("content-type", ""))
        ):
            return _refuse(
                415, "unsupported_media_type", "this route takes a JSON body: send Content-Type: application/json"
            )
        return None


def _refuse(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def _hostname(host: str) -> str:
    """``Host`` without its port: ``[::1]:8700`` is ``::1``, ``Example.com:80`` is ``example.com``.

    Anything but ``name[:port]`` or ``[address][:port]`` is no host at all (``""``), never a near match.
    """
    found = _HOST.fullmatch(host.lower())
    return "" if found is None else found.group(1) or found.group(2)


def _netloc(origin: str) -> str:
    """An origin's ``host[:port]``, as the browser also sent it in ``Host``, with default ports dropped."""
    scheme, _, rest = origin.lower().partition("://")
    for default in (":80",) if scheme == "http" else (":443",) if scheme == "https" else ():
        rest = rest.removesuffix(default)
    return rest


def _has_body(scope: Scope, headers: Mapping[str, str]) -> bool:
    """An empty POST (an operator's rollback) carries nothing a page could forge into an action.

    On Lambda the body is the event's, whatever length headers the client sent through API Gateway.
    """
    event = scope.get("aws.event")
    if isinstance(event, dict):
        return bool(event.get("body"))
    return headers.get("content-length", "0") != "0" or "transfer-encoding" in headers


def _json(content_type: str) -> bool:
    """``application/json`` or ``application/<x>+json``, in UTF-8 if a charset is named."""
    media, *params = [p.strip().lower() for p in content_type.split(";")]
    charset = next((p.partition("=")[2].strip('"') for p in params if p.startswith("charset=")), "utf-8")
    is_json = media in JSON_TYPES or (media.startswith("application/") and media.endswith("+json"))
    return is_json and charset in ("utf-8", "utf8")
