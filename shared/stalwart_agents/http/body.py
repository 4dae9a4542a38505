"""Request bodies: read within a size limit, then parsed as strict JSON.

Strict because a body is what a person approves or what a call runs with:
a key given twice (which value wins?), a body in UTF-16 that Python's json
would guess its way through, ``NaN`` or a number a browser cannot show exactly
could each make the service act on something other than what was shown.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from ..engine.exact import SAFE_INTEGER
from ..errors import BadRequest, PayloadTooLarge

MAX_BODY = 64 * 1024
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]", re.ASCII)
"""Where a parsed body may hold a lone surrogate: text decoded from UTF-8 cannot, so only an escape can bring one in;
only a body with such an escape is encoded again to find it."""


async def raw(request: Request, limit: int = MAX_BODY) -> bytes:
    """The body, read no further than ``limit`` bytes (PayloadTooLarge past it)."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise PayloadTooLarge(f"a request body may be at most {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise PayloadTooLarge(f"a request body may be at most {limit} bytes")
    return bytes(body)


def parsed(model: type[BaseModel], body: bytes) -> Any:
    """``body`` as ``model``, or BadRequest saying which field was wrong."""
    return validated(model, strict_json(body))


def validated(model: type[BaseModel], data: Any) -> Any:
    """JSON already read as ``model``, or BadRequest saying which field was wrong."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors()[:5])
        raise BadRequest(f"the body is not what this route takes: {problems}") from None


def strict_json(body: bytes) -> Any:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the body is not UTF-8") from None
    if text.startswith("\ufeff"):
        raise BadRequest("the body starts with a byte order mark; send plain UTF-8")
    try:
        value = _STRICT.decode(text or "null")
        if _ESCAPED_SURROGATE.search(text):
            json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest("the body holds an unpaired surrogate (\\ud800-\\udfff)") from None
    except (ValueError, RecursionError) as exc:
        raise BadRequest(f"the body is not valid JSON: {str(exc)[:200]}") from None
    return value


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise BadRequest(f"the body gives the key {key[:50]!r} more than once")
        found[key] = value
    return found


def _constant(name: str) -> Any:
    raise BadRequest(f"the body holds {name}, which JSON does not allow")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number) or abs(number) > SAFE_INTEGER:
        raise BadRequest(f"a number in the body is out of range (at most {SAFE_INTEGER} either way)")
    return number


def _safe(text: str) -> int:
    if len(text.lstrip("-")) > 16 or abs(number := int(text)) > SAFE_INTEGER:
        raise BadRequest(f"a whole number in the body is out of range (at most {SAFE_INTEGER} either way)")
    return number


_STRICT = json.JSONDecoder(object_pairs_hook=_once, parse_constant=_constant, parse_float=_finite, parse_int=_safe)
"""What ``json.loads`` with these hooks builds for every body: built once."""
