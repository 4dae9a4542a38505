"""Every statement a turn, an answer and the readings of a thread run on SQLite is keyed: SQLite's plan for each
(EXPLAIN QUERY PLAN) scans no table whole, so their cost does not grow with the number of threads in the file.

The statements are the ones really sent, recorded with sqlite3's trace callback while the shop's agent pauses on a
charge, the pause is read (the thread's interrupts, the inbox, the log) and then approved, in a store that already
holds other threads.
"""

from __future__ import annotations

import re

from stalwart_agents import Desk
from stalwart_agents.auth import ANONYMOUS
from stalwart_agents.storage import open_storage

from ..conftest import SHOP

CHARGE = "look up order 4411 and charge 40 to order 4411"
WHOLE_TABLE = re.compile(r"SCAN (?!.*\bUSING (COVERING )?INDEX\b)")
"""A step of a plan that reads a table from end to end; a SCAN ... USING INDEX walks an index in its order."""


def test_a_turn_an_answer_and_every_reading_of_a_thread_scan_no_table(tmp_path, ledger):
    store = open_storage(f"sqlite:///{tmp_path / 'runs.db'}")
    with Desk.from_file(SHOP, storage=store) as desk:
        for n in range(20):
            desk.send(f"other-{n}", CHARGE)
        sent: list[str] = []
        connection = store._connection()
        connection.set_trace_callback(sent.append)
        desk.enter("t", ANONYMOUS.key, start=True)
        desk.send("t", CHARGE)
        desk.waiting("t", ANONYMOUS)
        desk.inbox(ANONYMOUS, limit=5)
        desk.events("t")
        desk.history("t")
        desk.confirm("t", "approve")
        connection.set_trace_callback(None)
        statements = [s for s in sent if s.lstrip().upper().startswith(("SELECT", "INSERT", "UPDATE", "DELETE"))]
        scans = {
            statement: steps
            for statement in statements
            if (steps := [row[-1] for row in connection.execute(f"EXPLAIN QUERY PLAN {statement}")
                          if WHOLE_TABLE.match(row[-1])])
        }
    assert len(statements) > 20 and scans == {}
    assert len(ledger("charge")) == 1
