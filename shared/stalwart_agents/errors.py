"""Every error stalwart-agents raises, each with a stable ``code``.

    StalwartError
    ├── ConfigError ............ agent.yaml or a tools module is wrong (names file, line, key)
    ├── BadRequest ............. an answer a pause does not take, a missing value
    ├── PayloadTooLarge ........ a request body over the service's limit
    ├── UnsupportedMediaType ... a body that says it is not JSON, on a route that changes anything
    ├── Unauthorized ........... no bearer token, or one that does not verify
    ├── IssuerUnavailable ...... the identity provider's keys cannot be read just now (try again, do not sign in again)
    ├── Forbidden .............. a thumb from another session or thread, a rollback without the operator token, a cross-site request
    ├── NotFound ............... no such thread (another person's looks the same), run or pause
    ├── InterruptStale ......... the pause is no longer open, or the token is not the one shown
    ├── RunWaiting ............. a new turn on a thread whose run waits for a person
    ├── RunBusy ................ a new turn or answer while another worker runs the thread
    └── StorageError
        ├── StorageUnavailable . the store cannot be reached
        ├── StorageConflict .... a conditional write lost; carries the stored record
        │   ├── VersionConflict .. a run changed under us (the caller re-reads and retries)
        │   ├── PauseClosed ...... a claim found the pause already answered
        │   ├── PauseExists ...... a pause with that id was already opened
        │   ├── JournalExists .... a journal entry with that key was already written
        │   └── JournalConflict .. a journal entry was not in the state expected
        └── ThreadBusy ......... a run was begun on a thread that already has one

The HTTP layer maps ``code`` to a status in one place; callers never catch a
driver's own exceptions, because each backend translates them at its boundary.
"""

from __future__ import annotations

from typing import Any


class StalwartError(Exception):
    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigError(StalwartError):
    code = "bad_config"

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None, key: str | None = None) -> None:
        where = ":".join(str(part) for part in (file, line) if part is not None)
        prefix = " ".join(part for part in (where and f"{where}:", key and f"{key}:") if part)
        super().__init__(f"{prefix} {message}" if prefix else message)
        self.file, self.line, self.key = file, line, key


class BadRequest(StalwartError):
    code = "bad_request"


class PayloadTooLarge(StalwartError):
    code = "payload_too_large"


class UnsupportedMediaType(StalwartError):
    code = "unsupported_media_type"


class Unauthorized(StalwartError):
    """The request names no verified person; the message says why, never echoing the token.

    ``invalid_token`` is false when no token was sent at all (RFC 6750 then names no error).
    """

    code = "unauthorized"

    def __init__(self, message: str, *, invalid_token: bool = True) -> None:
        super().__init__(message)
        self.invalid_token = invalid_token


class IssuerUnavailable(StalwartError):
    code = "issuer_unavailable"


class Forbidden(StalwartError):
    code = "forbidden"


class NotFound(StalwartError):
    code = "not_found"


class InterruptStale(StalwartError):
    code = "interrupt_stale"


class RunWaiting(StalwartError):
    """Raised instead of starting a new run, so nothing that waits is dropped."""

    code = "run_waiting"

    def __init__(self, message: str, waiting: list[Any]) -> None:
        super().__init__(message)
        self.waiting = waiting


class RunBusy(StalwartError):
    code = "run_busy"


class StorageError(StalwartError):
    code = "storage_error"


class StorageUnavailable(StorageError):
    code = "storage_unavailable"


class StorageConflict(StorageError):
    """A conditional write lost: ``current`` is the stored record (None where none exists)."""

    def __init__(self, message: str, current: Any = None) -> None:
        super().__init__(message)
        self.current = current


class VersionConflict(StorageConflict):
    code = "version_conflict"


class PauseClosed(StorageConflict):
    code = "pause_closed"


class PauseExists(StorageConflict):
    code = "pause_exists"


class JournalExists(StorageConflict):
    code = "journal_exists"


class JournalConflict(StorageConflict):
    code = "journal_conflict"


class ThreadBusy(StorageError):
    code = "thread_busy"

    def __init__(self, message: str, active_run: str | None = None) -> None:
        super().__init__(message)
        self.active_run = active_run
