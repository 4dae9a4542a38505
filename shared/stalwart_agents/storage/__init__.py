"""Run stores behind one protocol, chosen by the ``storage:`` URL.

Each backend lives in its own module and is imported only when its scheme is
asked for, so importing the package never imports a database driver.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from ..errors import ConfigError
from ._records import stored_bytes
from .base import (
    DEFAULT_RETENTION,
    FINISHED,
    Changes,
    Committed,
    Event,
    Feedback,
    Inbox,
    InboxEntry,
    JournalEntry,
    PauseRecord,
    Pruned,
    Record,
    RecordPosition,
    RunRecord,
    RunStore,
    ShownMessage,
    SideTables,
    Snapshot,
    Storage,
    Upkeep,
    record_position,
    text,
)
from .chain import Break, Head

__all__ = [
    "DEFAULT_RETENTION",
    "FINISHED",
    "Break",
    "Changes",
    "Committed",
    "Event",
    "Feedback",
    "Head",
    "Inbox",
    "InboxEntry",
    "JournalEntry",
    "PauseRecord",
    "Pruned",
    "Record",
    "RecordPosition",
    "RunRecord",
    "RunStore",
    "ShownMessage",
    "SideTables",
    "Snapshot",
    "Storage",
    "Upkeep",
    "check_url",
    "default_store",
    "missing_extra",
    "open_storage",
    "record_position",
    "sqlite_path",
    "stored_bytes",
    "text",
]

SCHEMES = ("memory", "sqlite", "dynamodb", "postgres", "postgresql")
POSTGRES_URL = "postgres://USER:PASSWORD@HOST:PORT/DATABASE"
DYNAMODB_URL = "dynamodb://TABLE?region=REGION (with &endpoint=http://HOST:PORT for a local DynamoDB)"
STORAGE_URLS = f"memory://, sqlite:///PATH, {POSTGRES_URL} (postgresql:// too) or dynamodb://TABLE?region=REGION"
"""Every kind of store a URL may name, as the refusal of an unknown one lists them."""
TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")


def check_url(url: str) -> str:
    """Return the URL's scheme, or raise a ValueError that says what is wrong with it."""
    scheme = urlsplit(url).scheme
    if scheme not in SCHEMES:
        raise ValueError(f"unknown storage scheme {scheme or url!r}: use {STORAGE_URLS}")
    if scheme == "sqlite" and not url.startswith("sqlite:///"):
        raise ValueError(f"a sqlite URL is sqlite:///PATH (three slashes), not {url!r}")
    if scheme == "sqlite" and len(url) == len("sqlite:///"):
        raise ValueError("a sqlite URL needs a file: sqlite:///runs.db")
    if scheme == "dynamodb":
        dynamodb_address(url)
    if scheme in ("postgres", "postgresql"):
        check_postgres_url(url)
    return scheme


def check_postgres_url(url: str) -> None:
    """A ValueError unless the URL names a host and a database (libpq reads the rest)."""
    parts = urlsplit(url)
    try:
        _ = parts.port
    except ValueError:
        raise ValueError(f"a postgres URL is {POSTGRES_URL}; its port is not a number") from None
    if not parts.hostname or parts.path in ("", "/") or "/" in parts.path[1:] or parts.fragment:
        raise ValueError(f"a postgres URL is {POSTGRES_URL} (the port and password are optional)")


def dynamodb_address(url: str) -> tuple[str, str, str | None]:
    """The table, region and endpoint (None for AWS itself) a dynamodb URL names, or a ValueError saying why not."""
    parts = urlsplit(url)
    if not TABLE_NAME.fullmatch(parts.netloc) or parts.path not in ("", "/") or parts.fragment:
        raise ValueError(f"a dynamodb URL is {DYNAMODB_URL}, not {url!r}")
    params = parse_qs(parts.query, keep_blank_values=True)
    unknown = sorted(set(params) - {"region", "endpoint"})
    if unknown:
        raise ValueError(f"a dynamodb URL takes region= and endpoint=, not {unknown[0]}=")
    if any(len(values) > 1 for values in params.values()):
        raise ValueError(f"a dynamodb URL names its region and endpoint once each, not {url!r}")
    region = params.get("region", [""])[0]
    if not region:
        raise ValueError(f"a dynamodb URL needs its region: dynamodb://{parts.netloc}?region=eu-west-1")
    endpoint = params.get("endpoint", [""])[0] or None
    if endpoint is not None and urlsplit(endpoint).scheme not in ("http", "https"):
        raise ValueError(f"a dynamodb endpoint is an http:// or https:// URL, not {endpoint!r}")
    return parts.netloc, region, endpoint


def missing_extra(extra: str, what: str) -> str:
    """The sentence for a feature whose optional dependencies are not installed: which extra brings them, installed
    from the checkout (the package index's ``stalwart-agents`` is another vendor's)."""
    return f"{what} needs the {extra} extra: pip install -e '.[{extra}]' in the stalwart-agents checkout"


def _missing(extra: str, backend: str, exc: ImportError) -> ConfigError:
    return ConfigError(f"{missing_extra(extra, f'the {backend} backend')} ({exc})", key="storage")


def default_store(agent: str, config: Path) -> Path:
    """The SQLite file of an agent.yaml that names no store: ``$XDG_STATE_HOME/stalwart/<agent>-<digest>.db``
    (``~/.local/state`` where that is unset), the digest of the file's path keeping two projects' stores apart.

    Not beside agent.yaml, whose folder is shipped whole (the stack's agent layer, a repository, an image) and would
    carry pause tokens and signing keys with it; not the working folder, which would change with where serve is
    started from."""
    state = os.environ.get("XDG_STATE_HOME", "")
    root = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    digest = hashlib.sha256(str(config).encode()).hexdigest()[:8]
    return root / "stalwart" / f"{agent}-{digest}.db"


def sqlite_path(url: str, base_dir: Path | None) -> Path:
    """The file a ``sqlite:///PATH`` URL names; a relative PATH is taken from ``base_dir``."""
    path = Path(url[len("sqlite:///") :])
    return base_dir / path if not path.is_absolute() and base_dir is not None else path


def open_storage(url: str, *, base_dir: Path | None = None, retention: float = DEFAULT_RETENTION) -> Storage:
    """Open (and set up) the store a URL names; a relative SQLite path is taken from ``base_dir``.

    ``retention``: seconds a finished thread is kept after its last activity (see ``Upkeep``).
    """
    try:
        scheme = check_url(url)
    except ValueError as exc:
        raise ConfigError(str(exc), key="storage") from exc
    if scheme == "memory":
        from .memory import MemoryStorage

        store: Storage = MemoryStorage(retention=retention)
    elif scheme in ("postgres", "postgresql"):
        try:
            from .postgres import PostgresStorage
        except ImportError as exc:
            raise _missing("postgres", "postgres", exc) from exc

        store = PostgresStorage(url, retention=retention)
    elif scheme == "dynamodb":
        try:
            from .dynamodb import DynamoStorage
        except ImportError as exc:
            raise _missing("aws", "dynamodb", exc) from exc

        table, region, endpoint = dynamodb_address(url)
        store = DynamoStorage(table, region=region, endpoint=endpoint, retention=retention)
    else:
        from .sqlite import SqliteStorage

        store = SqliteStorage(sqlite_path(url, base_dir), retention=retention)
    try:
        store.setup()
    except BaseException:
        store.close()
        raise
    return store
