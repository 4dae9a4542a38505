"""A SQL store as an earlier version left it: the first ``version`` migrations run, and rows written as that
version wrote them, for a test to open with this one."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stalwart_agents.storage.sql_schema import MIGRATIONS

Fill = Callable[[Callable[..., Any], str], None]
"""Writes the rows, given the connection's ``execute`` and its parameter mark (``?`` or ``%s``)."""


def sqlite_at(path: Path, version: int, fill: Fill) -> str:
    from stalwart_agents.storage.sqlite import SQLITE

    with sqlite3.connect(path) as db:
        for script in MIGRATIONS[:version]:
            db.executescript(script.format_map(SQLITE.words))
        db.execute(f"PRAGMA user_version = {version}")
        fill(db.execute, "?")
    return f"sqlite:///{path}"


def postgres_at(url: str, version: int, fill: Fill) -> str:
    psycopg = pytest.importorskip("psycopg")
    from stalwart_agents.storage.postgres import POSTGRES

    with psycopg.connect(url) as db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_version VALUES (%s)", (version,))
        for script in MIGRATIONS[:version]:
            db.execute(script.format_map(POSTGRES.words))
        fill(db.execute, "%s")
    return url
