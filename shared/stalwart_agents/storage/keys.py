"""The keys a store keeps for the ids it hands out: threads' scopes, pauses' ids, the inbox's cursors.

One secret, kept by the store itself (``SideTables.secret``, first writer wins), is read once per store object, and
each use derives its own key from it.  So every worker and Lambda on one store computes the same thread scope and
pause id and opens the same cursor, while someone without the store learns nothing from what is keyed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import weakref

from .base import SideTables

SECRET = "ids"
"""The name the store keeps the secret under."""
PAUSE_ID = "pause id"
THREAD_SCOPE = "thread scope"
INBOX_CURSOR = "inbox cursor"
APPROVER = "approver reference"
"""The purposes a key is derived for."""
_kept: weakref.WeakKeyDictionary[SideTables, StoreKeys] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


class StoreKeys:
    """A key for each use, derived from the store's secret: a key never serves two purposes."""

    def __init__(self, secret: str) -> None:
        self._secret = secret.encode()
        self._derived: dict[str, bytes] = {}

    def key(self, purpose: str) -> bytes:
        """32 bytes for ``purpose`` alone: HMAC-SHA256 of the purpose under the store's secret, derived once."""
        derived = self._derived.get(purpose)
        if derived is None:
            made = hmac.new(self._secret, purpose.encode(), hashlib.sha256).digest()
            derived = self._derived.setdefault(purpose, made)
        return derived

    def digest(self, purpose: str, material: str) -> bytes:
        """``material`` keyed for ``purpose``: nobody without the store can compute or check it."""
        return hmac.new(self.key(purpose), material.encode(), hashlib.sha256).digest()


def keys_of(store: SideTables) -> StoreKeys:
    """The store's keys, its secret read (or first written) on the first call for this store object."""
    with _lock:
        kept = _kept.get(store)
    if kept is None:
        kept = StoreKeys(store.secret(SECRET, secrets.token_hex(32)))
        with _lock:
            kept = _kept.setdefault(store, kept)
    return kept


def approver_reference(store: SideTables, issuer: str, subject: str) -> str:
    """Who answered, as telemetry names them: the same person always reads the same on one store, and nobody
    without the store's secret can tell who it is, not even by trying a list of candidates."""
    return keys_of(store).digest(APPROVER, json.dumps([issuer, subject])).hex()[:16]
