"""Run stores behind one protocol, chosen by the ``storage:`` URL.

Each backend lives in its own module and is imported only when its scheme is
asked for, so importing the package never imports a database driver.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from ..errors import ConfigError
from .base import FINISHED, Changes, Committed, Event, Feedback, JournalEntry, PauseRecord, RunRecord, ShownMessage, Snapshot, Storage

__all__ = [
    "FINISHED", "Changes", "Committed", "Event", "Feedback", "JournalEntry", "PauseRecord", "RunRecord", "ShownMessage", "Snapshot", "Storage",
    "check_url", "open_storage",
]

SCHEMES = ("memory", "sqlite")
NOT_SHIPPED = {
    "postgres": "the postgres:// backend has not shipped yet; use sqlite:///PATH on one machine",
    "postgresql": "the postgres:// backend has not shipped yet; use sqlite:///PATH on one machine",
    "dynamodb": "the dynamodb:// backend has not shipped yet; use sqlite:///PATH on one machine",
}


def check_url(url: str) -> str:
    """Return the URL's scheme, or raise a ValueError that says what is wrong with it."""
    scheme = urlsplit(url).scheme
    if scheme in NOT_SHIPPED:
        raise ValueError(NOT_SHIPPED[scheme])
    if scheme not in SCHEMES:
        raise ValueError(f"unknown storage scheme {scheme or url!r}: use memory:// or sqlite:///PATH")
    if scheme == "sqlite" and not url.startswith("sqlite:///"):
        raise ValueError(f"a sqlite URL is sqlite:///PATH (three slashes), not {url!r}")
    if scheme == "sqlite" and len(url) == len("sqlite:///"):
        raise ValueError("a sqlite URL needs a file: sqlite:///runs.db")
    return scheme


def open_storage(url: str, *, base_dir: Path | None = None) -> Storage:
    """Open (and set up) the store a URL names; a relative SQLite path is taken from ``base_dir``."""
    try:
        scheme = check_url(url)
    except ValueError as exc:
        raise ConfigError(str(exc), key="storage") from exc
    if scheme == "memory":
        from .memory import MemoryStorage

        store: Storage = MemoryStorage()
    else:
        from .sqlite import SqliteStorage

        path = Path(url[len("sqlite:///"):])
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        store = SqliteStorage(path)
    store.setup()
    return store
