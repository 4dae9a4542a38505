"""The inbox's cursor, sealed: where a page ended, readable only by the store, and only for the reader it was given to.

A position (the last pause read, and when it opened) is encrypted, then authenticated with the reader's key
(encrypt-then-MAC, HMAC-SHA256 for both: a keystream of HMAC blocks over a random nonce, then a tag over the reader,
the nonce and the ciphertext), under keys derived from the store's own secret (``storage/keys.py``).  So a cursor
shows neither the pause nor its time, a changed or made-up one is refused, and so is one person's cursor offered by
another, each with the same 400; every worker and Lambda on the store opens the cursors every other seals.  The
standard library does it all, so the Lambda layer carries no compiled cryptography for it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import re
import secrets

from ..errors import BadRequest
from ..storage import Storage
from ..storage.base import Position
from ..storage.keys import INBOX_CURSOR, keys_of

NONCE = 16
TAG = 16
BLOCK = 32
"""Bytes of a nonce, a tag, and the block the position is padded to (so a cursor's length says nothing either)."""
CURSOR_MAX = 600
CURSOR_PATTERN = rf"^[A-Za-z0-9_-]{{1,{CURSOR_MAX}}}$"
"""What ``next`` looks like, and so what ``?cursor=`` takes: base64url, without padding."""
_CURSOR = re.compile(CURSOR_PATTERN[1:-1])
REFUSED = "this cursor is not one the inbox gave you; start again without it"


def seal(store: Storage, reader: str, at: Position) -> str:
    """The cursor that reads on from ``at`` for ``reader`` (a principal's key) alone."""
    plain = json.dumps([at[0], at[1]], separators=(",", ":"), ensure_ascii=False).encode()
    plain += b" " * (-len(plain) % BLOCK)
    nonce = secrets.token_bytes(NONCE)
    encrypt, authenticate = _keys(store)
    body = nonce + _xor(plain, _keystream(encrypt, nonce, len(plain)))
    return base64.urlsafe_b64encode(body + _tag(authenticate, reader, body)).decode().rstrip("=")


def unseal(store: Storage, reader: str, cursor: str) -> Position:
    """Where ``cursor`` says to read on from, for ``reader``; BadRequest for anything not sealed for them."""
    sealed = _decoded(cursor)
    body, tag = sealed[:-TAG], sealed[-TAG:]
    encrypt, authenticate = _keys(store)
    if len(body) <= NONCE or not hmac.compare_digest(tag, _tag(authenticate, reader, body)):
        raise BadRequest(REFUSED)
    nonce, secret = body[:NONCE], body[NONCE:]
    try:
        created_at, pause = json.loads(_xor(secret, _keystream(encrypt, nonce, len(secret))))
    except (ValueError, TypeError):
        raise BadRequest(REFUSED) from None
    if not isinstance(created_at, float | int) or not math.isfinite(created_at) or not isinstance(pause, str):
        raise BadRequest(REFUSED)
    return float(created_at), pause


def _decoded(cursor: object) -> bytes:
    if not isinstance(cursor, str) or _CURSOR.fullmatch(cursor) is None or len(cursor) % 4 == 1:
        raise BadRequest(REFUSED)
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        raise BadRequest(REFUSED) from None


def _keys(store: Storage) -> tuple[bytes, bytes]:
    keys = keys_of(store)
    return keys.key(f"{INBOX_CURSOR} encrypt"), keys.key(f"{INBOX_CURSOR} authenticate")


def _keystream(key: bytes, nonce: bytes, size: int) -> bytes:
    blocks = (hmac.new(key, nonce + n.to_bytes(4, "big"), hashlib.sha256).digest() for n in range(-(-size // 32)))
    return b"".join(blocks)[:size]


def _xor(data: bytes, stream: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, stream, strict=True))


def _tag(key: bytes, reader: str, body: bytes) -> bytes:
    named = reader.encode()
    return hmac.new(key, len(named).to_bytes(4, "big") + named + body, hashlib.sha256).digest()[:TAG]
