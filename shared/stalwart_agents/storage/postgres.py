"""The run store in one PostgreSQL database, shared by every machine that runs agents."""

from __future__ import annotations

import select
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import StorageUnavailable
from ._conditions import Taken
from ._sql import Cursor, Dialect, SqlStorage
from .base import DEFAULT_RETENTION

TIMEOUT = 5.0
MAX_CONNECTIONS = 10
CHECK_IDLE = 5.0
"""Seconds a pooled connection may lie idle and still be handed out without a round trip to check it."""
SCHEMA_LOCK = 0x5354414C5741  # pg_advisory_xact_lock(bigint): one setup() at a time per database
# SQLSTATE classes that mean the server is gone or refuses us: connection exception, shutdown, out of resources.
UNREACHABLE = ("08", "57P", "53")
# Until schema 4, Postgres numbered its own migrations: its 1 was MIGRATIONS 1 to 3 at once, its 2 was 4.
LEGACY_VERSIONS = {1: 3, 2: 4}

POSTGRES = Dialect(
    words={
        "integer": "BIGINT",
        "real": "DOUBLE PRECISION",
        "counter": "BIGSERIAL",
        "serial_key": "BIGSERIAL PRIMARY KEY",
        "arrival_column": "\n        seq BIGSERIAL NOT NULL,",
        "arrival_indexed": ", seq",
        "arrival": "seq",
        "next_started_order": "DEFAULT",
        "lock_skipping": " FOR UPDATE SKIP LOCKED",
        "delivered": "COALESCE(CAST(delivery AS jsonb) ->> 'delivered' = 'true', false)",
        "payload_tool": (
            "CASE jsonb_typeof(CAST(payload AS jsonb) -> 'tool')"
            " WHEN 'string' THEN CAST(payload AS jsonb) ->> 'tool' END"
        ),
    },
    placeholder="%({})s",
    holds_nul=False,
)


def masked(url: str) -> str:
    """The URL with its password (in the user part or the query) shown as ***."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        userinfo, _, hostport = netloc.rpartition("@")
        netloc = f"{userinfo.partition(':')[0]}:***@{hostport}"
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(name == "password" for name, _ in query):
        query = [(name, "***" if name == "password" else value) for name, value in query]
        return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, safe="*")))
    return urlunsplit(parts._replace(netloc=netloc))


class PostgresStorage(SqlStorage[psycopg.Connection[Any]]):
    """Keeps runs in PostgreSQL, so several machines share them.

    Every write is one READ COMMITTED transaction whose racing statements are
    conditional (``WHERE version = ...``, ``ON CONFLICT DO NOTHING``) and
    checked by row count, so every compare-and-set is decided by the database.
    A begin locks its thread's row, and so does every commit that appends events
    to a thread (its touch comes first, and locks the row even where the stored
    touch is recent enough to keep), so a thread's events are appended one commit
    at a time and their ids rise as readers see them.  A commit's statements go
    in pipeline mode (``_committing``).
    Connections come from a pool that drops broken ones and reconnects; it
    checks one with a round trip only where it may have broken unseen (see
    ``_check``), since checking every one it hands out costs a round trip a request.
    """

    dialect = POSTGRES

    def __init__(
        self,
        url: str,
        *,
        timeout: float = TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
        retention: float = DEFAULT_RETENTION,
        check_idle: float = CHECK_IDLE,
    ) -> None:
        self.retention, self.clock = retention, time.time
        self._check_idle = check_idle
        self._returned: weakref.WeakKeyDictionary[psycopg.Connection[Any], float] = weakref.WeakKeyDictionary()
        self._pipelines: weakref.WeakKeyDictionary[psycopg.Connection[Any], psycopg.Pipeline] = (
            weakref.WeakKeyDictionary()
        )
        self.url = masked(url)
        params = conninfo_to_dict(url)
        self._conninfo, self._password = url, str(params.get("password") or "")
        self.address = f"{params.get('host') or 'localhost'}:{params.get('port') or 5432}/{params.get('dbname', '')}"
        self.name = f"the Postgres store {self.address}"
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            timeout=timeout,
            reconnect_timeout=timeout,
            check=self._check,
            reset=self._note_returned,
            kwargs={"autocommit": True, "row_factory": dict_row, "connect_timeout": max(1, round(timeout))},
            name=f"stalwart {self.address}",
            open=True,
        )

    def close(self) -> None:
        self._pool.close()

    def _check(self, connection: psycopg.Connection[Any]) -> None:
        """Check the connection with a round trip where it may be broken: new, idle for more than ``check_idle``
        seconds (a network path can die silently), or with something to read while idle (a server that shuts down
        says so, and closes it).  One returned a moment ago, with nothing waiting on it, is handed out as it is."""
        returned = self._returned.get(connection)
        idle = returned is None or time.monotonic() - returned > self._check_idle
        if idle or _readable(connection.fileno()):
            ConnectionPool.check_connection(connection)

    def _note_returned(self, connection: psycopg.Connection[Any]) -> None:
        self._returned[connection] = time.monotonic()

    def _schema_version(self, db: psycopg.Connection[Any]) -> int:
        """The version, holding the schema lock; a count from before the shared list is renumbered on the way."""
        db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = db.execute("SELECT version FROM schema_version").fetchone()
        if row is None:
            return 0
        if row["version"] in LEGACY_VERSIONS:
            self._set_schema_version(db, LEGACY_VERSIONS[row["version"]])
        return int(LEGACY_VERSIONS.get(row["version"], row["version"]))

    def _set_schema_version(self, db: psycopg.Connection[Any], version: int) -> None:
        if db.execute("UPDATE schema_version SET version = %s", (version,)).rowcount == 0:
            db.execute("INSERT INTO schema_version VALUES (%s)", (version,))

    def _migrate(self, db: psycopg.Connection[Any], script: str) -> None:
        db.execute(script)

    @contextmanager
    def _reading(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection in autocommit: each statement is its own transaction."""
        with self._translated(), self._pool.connection() as db:
            yield db

    def _reading_together(self) -> AbstractContextManager[psycopg.Connection[Any]]:
        """One read-only snapshot whose reads, asked for before any is read, come back in one round trip."""
        return self._pipelined("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection in one transaction, committed when the block ends and rolled back if it raises."""
        with self._reading() as db, db.transaction():
            yield db

    def _committing(self) -> AbstractContextManager[psycopg.Connection[Any]]:
        """A commit's transaction, pipelined: a statement whose result the commit does not read (pointing or
        touching a thread, closing a pause, moving a record's head) goes with the next one whose result it does."""
        return self._pipelined("BEGIN")

    @contextmanager
    def _pipelined(self, begin: str) -> Iterator[psycopg.Connection[Any]]:
        """A transaction in pipeline mode: ``begin`` goes with the first statement, and the last ones with COMMIT, so
        it waits on fewer round trips.  The server runs them one by one, in the order sent, and the block ends once
        COMMIT's result is in."""
        with self._reading() as db:
            try:
                with db.pipeline() as pipeline:
                    self._pipelines[db] = pipeline
                    db.execute(begin)
                    yield db
                    db.execute("COMMIT")
            except BaseException:
                _roll_back(db)
                raise
            finally:
                self._pipelines.pop(db, None)

    def _changed(self, db: psycopg.Connection[Any], statement: str, params: Mapping[str, Any]) -> Taken:
        """Whether the statement changed a row: in a pipeline, learnt once its result is in, which the next
        statement whose result the commit reads brings with its own."""
        cursor = db.execute(self.dialect.render(statement), params)
        pipeline = self._pipelines.get(db)
        return cursor.rowcount > 0 if pipeline is None else Changed(cursor, pipeline)

    def _rows_later(self, db: psycopg.Connection[Any], cursor: Cursor) -> Callable[[], list[Any]]:
        """In a pipeline, the rows are read the first time they are asked for: they come in with a later statement's
        result (COMMIT's, or that of one the commit reads), or the pipeline is synced for them then."""
        pipeline = self._pipelines.get(db)
        if pipeline is None:
            return super()._rows_later(db, cursor)
        assert isinstance(cursor, psycopg.Cursor), "a connection's statements give its cursors"
        read: list[list[Any]] = []

        def rows() -> list[Any]:
            if not read:
                read.append(_synced(cursor, pipeline).fetchall())
            return read[0]

        return rows

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except psycopg.OperationalError as exc:  # PoolTimeout included: no server answered in time
            if exc.sqlstate is not None and not exc.sqlstate.startswith(UNREACHABLE):
                raise
            raise StorageUnavailable(
                f"{self.name} cannot be reached ({self._reason(exc)}); "
                "check that the server is up and that the storage URL names it"
            ) from exc

    def _reason(self, exc: psycopg.Error) -> str:
        """The first line of what went wrong, never the password; a pool timeout is told apart by one direct try."""
        if isinstance(exc, PoolTimeout):
            try:
                psycopg.connect(self._conninfo, connect_timeout=2).close()
            except psycopg.Error as direct:
                exc = direct
            else:
                return f"all {self._pool.max_size} connections stayed busy for {self._pool.timeout:g} s"
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return reason.replace(self._password, "***") if self._password else reason


class Changed:
    """Whether a statement sent in a pipeline changed a row, asked once the commit needs to know: its result has come
    in with a later one's, or the pipeline is synced for it then."""

    def __init__(self, cursor: psycopg.Cursor[Any], pipeline: psycopg.Pipeline) -> None:
        self._cursor, self._pipeline = cursor, pipeline

    def __bool__(self) -> bool:
        return _synced(self._cursor, self._pipeline).rowcount > 0


def _synced(cursor: psycopg.Cursor[Any], pipeline: psycopg.Pipeline) -> psycopg.Cursor[Any]:
    """``cursor``, its result in: one that has not come in with a later one's yet is waited for with every other
    sent, in one round trip."""
    if cursor.pgresult is None:
        pipeline.sync()
    return cursor


def _roll_back(db: psycopg.Connection[Any]) -> None:
    """End a commit that raised (its pipeline has collected what it held, a failed statement's error included): roll
    back what it began.  A connection this fails on is broken, and the pool drops it."""
    with suppress(psycopg.Error):
        db.execute("ROLLBACK")


def _readable(fd: int) -> bool:
    """Whether the socket has something to read (or has been closed) now, without waiting."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [], 0)[0])
