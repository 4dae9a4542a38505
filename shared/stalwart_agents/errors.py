"""Every error stalwart-agents raises, each with a stable ``code``.

    StalwartError
    ├── ConfigError ............ agent.yaml or a tools module is wrong (names file, line, key)
    ├── BadRequest ............. an answer a pause does not take, a missing value, a change nobody may make
    ├── PayloadTooLarge ........ a request body over the service's limit
    ├── ValueTooLarge .......... a call's arguments or result, or an event, over settings.max_value_bytes
    ├── UnsupportedMediaType ... a body that says it is not JSON, on a route that changes anything
    ├── Unauthorized ........... no bearer token, or one that does not verify
    ├── IssuerUnavailable ...... the identity provider's keys cannot be read just now (try again, do not sign in again)
    ├── Forbidden .............. a cross-site request, a thumb from another session or thread, no operator token
    │   ├── NotAnApprover ...... an answer from a person the pause's approver rules do not allow
    │   └── EditRefused ........ an approval whose changed call the check refuses outright
    ├── NotFound ............... no such thread (another person's looks the same), run or pause
    ├── NotALink ............... a signed link this service did not make, or one changed since (404)
    ├── LinkExpired ............ a signed link past its hours (410)
    ├── InterruptStale ......... the pause is no longer open, or the token is not the one shown
    ├── AlreadyApproved ........ a person approving a pause that needs several people a second time
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

Each class carries its HTTP ``status`` beside its ``code``, and a subclass inherits
its parent's, so the one handler in the HTTP layer reads ``type(exc).status`` and a
new error is never a 500 by accident.  Callers never catch a driver's own
exceptions, because each backend translates them at its boundary.
"""

from __future__ import annotations

from typing import Any, ClassVar


class StalwartError(Exception):
    """Anything stalwart-agents raises on purpose; a bare one is the service's own fault (500)."""

    code: ClassVar[str] = "error"
    status: ClassVar[int] = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigError(StalwartError):
    code = "bad_config"

    def __init__(
        self, message: str, *, file: str | None = None, line: int | None = None, key: str | None = None
    ) -> None:
        where = ":".join(str(part) for part in (file, line) if part is not None)
        prefix = " ".join(part for part in (where and f"{where}:", key and f"{key}:") if part)
        super().__init__(f"{prefix} {message}" if prefix else message)
        self.file, self.line, self.key = file, line, key


class BadRequest(StalwartError):
    code = "bad_request"
    status = 400


class PayloadTooLarge(StalwartError):
    code = "payload_too_large"
    status = 413


class ValueTooLarge(StalwartError):
    """What a run would keep is larger than a store may hold whole: refused, naming the call and the size."""

    code = "too_large"
    status = 413


class UnsupportedMediaType(StalwartError):
    code = "unsupported_media_type"
    status = 415


class Unauthorized(StalwartError):
    """The request names no verified person; the message says why, never echoing the token.

    ``invalid_token`` is false when no token was sent at all (RFC 6750 then names no error).
    """

    code = "unauthorized"
    status = 401

    def __init__(self, message: str, *, invalid_token: bool = True) -> None:
        super().__init__(message)
        self.invalid_token = invalid_token


class IssuerUnavailable(StalwartError):
    code = "issuer_unavailable"
    status = 503


class Forbidden(StalwartError):
    code = "forbidden"
    status = 403


class NotAnApprover(Forbidden):
    """Refused, and audited as refused; nothing changes.  ``pause`` is the one the answer was for."""

    code = "not_an_approver"

    def __init__(self, message: str, *, pause: str) -> None:
        super().__init__(message)
        self.pause = pause


class EditRefused(Forbidden):
    """An approval with changes the check refuses outright: nothing was answered, and the call waits as asked."""

    code = "edit_refused"


class NotFound(StalwartError):
    code = "not_found"
    status = 404


class NotALink(StalwartError):
    """Not a signed link this service made, or one changed since: a wrong MAC, decision or pause look the same."""

    code = "not_a_link"
    status = 404


class LinkExpired(StalwartError):
    """A signed link past its hours; ``pause`` is the pause it names (its MAC verified), so a page can say what
    became of it."""

    code = "link_expired"
    status = 410

    def __init__(self, message: str, *, pause: str | None = None) -> None:
        super().__init__(message)
        self.pause = pause


class InterruptStale(StalwartError):
    code = "interrupt_stale"
    status = 409


class PauseExpired(StalwartError):
    """An answer to a pause its deadline ended: nothing it said was done.  ``reply`` is the move the expiry made,
    where this answer was the one to find the deadline passed, so what it opened is still announced."""

    code = "pause_expired"
    status = 410

    def __init__(self, message: str, *, reply: Any = None) -> None:
        super().__init__(message)
        self.reply = reply


class AlreadyApproved(StalwartError):
    """Four eyes means two different people: a second approval by the same one counts for nothing."""

    code = "already_approved"
    status = 409

    def __init__(self, message: str, *, pause: str) -> None:
        super().__init__(message)
        self.pause = pause


class RunWaiting(StalwartError):
    """Raised instead of starting a new run, so nothing that waits is dropped."""

    code = "run_waiting"
    status = 409

    def __init__(self, message: str, waiting: list[Any]) -> None:
        super().__init__(message)
        self.waiting = waiting
        self.shown: list[dict[str, Any]] | None = None
        """What waits as the service shows it to the person refused (each pause with its card), where it knows."""


class RunBusy(StalwartError):
    code = "run_busy"
    status = 409


class StorageError(StalwartError):
    code = "storage_error"


class StorageUnavailable(StorageError):
    code = "storage_unavailable"
    status = 503


class StorageConflict(StorageError):
    """A conditional write lost: ``current`` is the stored record (None where none exists)."""

    code = "storage_conflict"
    status = 409

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
    status = 409

    def __init__(self, message: str, active_run: str | None = None) -> None:
        super().__init__(message)
        self.active_run = active_run
