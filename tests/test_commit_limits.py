"""A move commits in bounded pieces: however many calls a turn makes, no commit passes what any backend takes."""

import json
import textwrap

import pytest

from stalwart_agents import Desk
from stalwart_agents.engine.sizes import json_size
from stalwart_agents.storage import open_storage

from .storage.conftest import BACKENDS, postgres_url  # noqa: F401 (fixtures)
from .test_sizes import TOOLS, sent  # noqa: F401 (fixtures)

ITEMS = 100
BYTES = 4 * 1024 * 1024
"""What DynamoDB takes in one transaction, the least any backend takes."""

MANY_READS = "post 1 and " + " and ".join(["fetch 1"] * 60)
BIG_READS = "post 1 and " + " and ".join(["fetch 120000"] * 36)
"""An approved write, then 60 reads; or then 36 reads of about 120 KB each (4.3 MB together)."""


class Recording:
    """A store that notes the records and JSON bytes of every commit, and hands everything to the real one."""

    def __init__(self, store):
        self.store, self.commits = store, []

    def __getattr__(self, name):
        return getattr(self.store, name)

    def commit(self, changes):
        records = [*changes.pauses, *changes.starts, *(entry for entry, _, _ in changes.updates), *changes.shown]
        size = sum(json_size(vars(r)) for r in records) + sum(json_size(e.body) for e in changes.events)
        run = changes.run or changes.begin
        size += json_size(vars(run)) if run is not None else 0
        count = len(records) + len(changes.events) + (run is not None) + (changes.claim is not None)
        self.commits.append((count, size))
        return self.store.commit(changes)


class Transactions:
    """Every TransactWriteItems a DynamoDB client sends: how many items, and its request's size as JSON."""

    def __init__(self, client):
        self.sent = []
        client.meta.events.register("provide-client-params.dynamodb.TransactWriteItems", self._sent)

    def _sent(self, params, **_):
        self.sent.append((len(params["TransactItems"]), len(json.dumps(params).encode())))


@pytest.fixture(params=list(BACKENDS))
def recorded(request, tmp_path, sent):  # noqa: F811 (a fixture)
    store = Recording(open_storage(BACKENDS[request.param](request, tmp_path)))
    transactions = Transactions(store.client) if request.param == "dynamodb" else None
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS))
    (tmp_path / "agent.yaml").write_text("agents:\n  - name: a\n    tools: tools.py\n")
    with Desk.from_file(tmp_path / "agent.yaml", storage=store) as desk:
        yield desk, store, transactions


@pytest.mark.parametrize("turn", [MANY_READS, BIG_READS], ids=["60 reads", "36 big reads"])
def test_an_approved_write_then_many_reads_finishes_done_in_commits_any_backend_takes(recorded, sent, turn):  # noqa: F811
    desk, store, transactions = recorded
    [pause] = desk.send("t", turn).waiting
    reply = desk.confirm("t", "approve", waiting=pause.id, token=pause.token)
    assert reply.status == "done" and len(reply.steps) == turn.count(" and ") + 1
    assert desk.storage.last_run("t").status == "done"
    assert all(entry.status == "done" for entry in desk.storage.journal(reply.run))
    assert sent() == ["post"]
    assert len(store.commits) > 3
    assert all(count <= ITEMS and size <= BYTES for count, size in store.commits)
    if transactions is not None:
        assert all(items <= ITEMS and size <= BYTES for items, size in transactions.sent)
