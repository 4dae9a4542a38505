"""The SQL schema, as numbered migrations that SQLite and Postgres both apply: the one source of truth for both.

A ``{word}`` is what the two spell differently (a column type, Postgres's
sequence column on pauses); each backend's ``Dialect`` fills it in.  The list
is append only: a store that has applied the first N migrations is at schema
version N, and ``setup`` applies the rest in one transaction.  Until version 4
Postgres numbered its own: its 1 was migrations 1 to 3 at once, its 2 was 4.
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: runs, their threads, pauses and journal, and each thread's events
    """
    CREATE TABLE threads (
        thread TEXT PRIMARY KEY,
        active_run TEXT,
        last_run TEXT
    );
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        thread TEXT NOT NULL,
        agent TEXT NOT NULL,
        status TEXT NOT NULL,
        version {integer} NOT NULL,
        state TEXT NOT NULL,
        lease_owner TEXT,
        lease_until {real},
        created_at {real} NOT NULL,
        updated_at {real} NOT NULL
    );
    CREATE TABLE pauses (
        id TEXT PRIMARY KEY,{arrival_column}
        run TEXT NOT NULL,
        thread TEXT NOT NULL,
        kind TEXT NOT NULL,
        step {integer} NOT NULL,
        token TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        answer TEXT,
        created_at {real} NOT NULL
    );
    CREATE INDEX pauses_by_run ON pauses (run, step, created_at{arrival_indexed});
    CREATE TABLE journal (
        run TEXT NOT NULL,
        key TEXT NOT NULL,
        started_order {counter} NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        status TEXT NOT NULL,
        result TEXT,
        error TEXT,
        idempotency_key TEXT NOT NULL,
        attempt {integer} NOT NULL,
        started_at {real} NOT NULL,
        finished_at {real},
        PRIMARY KEY (run, key)
    );
    CREATE INDEX journal_in_started_order ON journal (run, started_order);
    CREATE TABLE events (
        id {serial_key},
        thread TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX events_by_thread ON events (thread, id);
    """,
    # 2: the side tables: secrets, messages shown, feedback
    """
    CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE shown (
        id TEXT PRIMARY KEY,
        session TEXT NOT NULL,
        thread TEXT NOT NULL,
        text TEXT NOT NULL,
        shown_at {real} NOT NULL
    );
    CREATE TABLE feedback (
        message TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        thumb TEXT NOT NULL,
        rated_at {real} NOT NULL
    );
    """,
    # 3: how a pause's announcement went
    """
    ALTER TABLE pauses ADD COLUMN delivery TEXT;
    """,
    # 4: who owns a thread
    """
    CREATE TABLE owners (
        thread TEXT PRIMARY KEY,
        owner TEXT NOT NULL
    );
    """,
    # 5: retention and the sweep: every thread anything is kept under has a row, with its last activity
    # (back-filled from its runs' last save, else its shown replies, else 0: long idle); a pause's
    # delivery claim; and the indexes prune and stale_runs read by
    """
    ALTER TABLE threads ADD COLUMN touched_at {real} NOT NULL DEFAULT 0;
    INSERT INTO threads (thread)
        SELECT thread FROM events UNION SELECT thread FROM shown UNION SELECT thread FROM owners
        EXCEPT SELECT thread FROM threads;
    UPDATE threads SET touched_at = COALESCE(
        (SELECT MAX(updated_at) FROM runs WHERE runs.thread = threads.thread),
        (SELECT MAX(shown_at) FROM shown WHERE shown.thread = threads.thread),
        0
    );
    CREATE INDEX threads_idle ON threads (touched_at) WHERE active_run IS NULL;
    CREATE INDEX runs_by_thread ON runs (thread);
    CREATE INDEX runs_running ON runs (lease_until) WHERE status = 'running';
    CREATE INDEX shown_by_thread ON shown (thread);
    CREATE INDEX shown_by_age ON shown (shown_at);
    CREATE INDEX feedback_by_age ON feedback (rated_at);
    ALTER TABLE pauses ADD COLUMN claimed_at {real};
    """,
    # 6: redelivery: when a failed announcement is next due (set with each delivery noted), and the indexes
    # due_deliveries reads by: failed ones by that time, never-noted ones by their age
    """
    ALTER TABLE pauses ADD COLUMN due_at {real};
    UPDATE pauses SET due_at = created_at WHERE status = 'open' AND delivery IS NOT NULL AND NOT {delivered};
    CREATE INDEX pauses_due ON pauses (due_at) WHERE status = 'open' AND due_at IS NOT NULL;
    CREATE INDEX pauses_unannounced ON pauses (created_at) WHERE status = 'open' AND delivery IS NULL;
    """,
    # 7: the inbox: each pause's tool (its payload's, where that is text), back-filled for the open ones alone
    # (nothing reads it of an answered pause, and rewriting every pause would hold the store for long), and the
    # indexes the inbox reads open pauses by, newest first: all of them, by kind, by tool
    """
    ALTER TABLE pauses ADD COLUMN tool TEXT;
    UPDATE pauses SET tool = {payload_tool} WHERE status = 'open';
    CREATE INDEX pauses_open ON pauses (created_at, id) WHERE status = 'open';
    CREATE INDEX pauses_open_by_kind ON pauses (kind, created_at, id) WHERE status = 'open';
    CREATE INDEX pauses_open_by_tool ON pauses (tool, created_at, id) WHERE status = 'open';
    """,
    # 8: deadlines: when the clock next wakes an open pause (to remind, escalate or expire it), how many of its
    # deadline's events are done, and the index due_pauses reads by, of the pauses the clock has work for alone
    """
    ALTER TABLE pauses ADD COLUMN wake_at {real};
    ALTER TABLE pauses ADD COLUMN woken INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX pauses_wake ON pauses (wake_at) WHERE status = 'open' AND wake_at IS NOT NULL;
    """,
    # 9: the decision record: each thread's decisions, numbered and chained (``storage.chain``), read by thread
    # and, for an export, by time; and each thread's head, where its record ends.  A prune leaves both be.
    """
    CREATE TABLE decisions (
        thread TEXT NOT NULL,
        seq {integer} NOT NULL,
        at {real} NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (thread, seq)
    );
    CREATE INDEX decisions_by_time ON decisions (at, thread, seq);
    CREATE TABLE decision_heads (
        thread TEXT PRIMARY KEY,
        seq {integer} NOT NULL,
        digest TEXT NOT NULL
    );
    """,
    # 10: packed rows (``storage._packed``): an event's type, run and time in columns of their own, and whether a
    # pause or journal entry is packed (NULL: kept as before); a thread's last run is kept only where it is not its
    # active one.  A run's journal is read whole by (run, key) and sorted, so its index by started order goes.
    """
    ALTER TABLE events ADD COLUMN type TEXT;
    ALTER TABLE events ADD COLUMN run TEXT;
    ALTER TABLE events ADD COLUMN at_ms {integer};
    ALTER TABLE pauses ADD COLUMN packed {integer};
    ALTER TABLE journal ADD COLUMN packed {integer};
    DROP INDEX journal_in_started_order;
    """,
]
