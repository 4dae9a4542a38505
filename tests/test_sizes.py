"""Values over settings.max_value_bytes: refused at the tool boundary naming the call, never a 500, never sent twice."""

import json
import textwrap

import httpx
import pytest

from stalwart_agents import Desk
from stalwart_agents.engine.engine import Recovery
from stalwart_agents.engine.sizes import MAX_DEPTH, json_size
from stalwart_agents.errors import ValueTooLarge
from stalwart_agents.serve import make_app

from .server import serving
from .storage.conftest import BACKENDS, postgres_url  # noqa: F401 (fixtures)

LIMIT = 131072
ENVELOPE = 1024
BODY = len('{"body":""}')
"""What a result of ``fetch`` is besides its body, as JSON: a body of LIMIT - BODY bytes is exactly at the limit."""

TOOLS = """
    import json, os

    from stalwart_agents import step, tool

    def sent(name):
        with open(os.environ["SIZES_SENT"], "a") as f:
            f.write(name + "\\n")

    @tool(says=["fetch {size:number}"])
    def fetch(size: int) -> dict:
        return {"body": "x" * size}

    @tool(says=["echo it"])
    def echo(text: str) -> dict:
        return {"text": text[:10]}

    @tool(write=True, says=["post {size:number}"])
    def post(size: int) -> dict:
        sent("post")
        return {"receipt": "r" * size}

    @tool(write=True, undo="unpost", says=["file {size:number}"])
    def file(size: int, pad: str) -> dict:
        sent("file")
        return {"receipt": "f" * size}

    @tool(write=True)
    def unpost(**call) -> dict:
        sent("unpost")
        return {"undone": True}

    def odd(kind):
        if kind == "nan":
            return {"reading": float("nan")}
        nested = []
        for _ in range(5000):
            nested = [nested]
        return {"nested": nested}

    @tool(says=["measure {kind:text}"])
    def measure(kind: str) -> dict:
        return odd(kind)

    @tool(write=True, says=["record {kind:text}"])
    def record(kind: str) -> dict:
        sent("record")
        return odd(kind)

    @tool(write=True, undo="unpost", says=["stack {depth:number}"])
    def stack(depth: int) -> dict:
        sent("stack")
        nested = {}
        for _ in range(depth - 1):
            nested = {"in": nested}
        return nested

    @step(says=["relay {size:number}"])
    def relay(run, size: int) -> dict:
        return run.call("echo", text="y" * size)
"""


def desk_at(folder, storage="memory://", monkeypatch=None):
    (folder / "tools.py").write_text(textwrap.dedent(TOOLS))
    (folder / "agent.yaml").write_text(f"storage: {storage}\nagents:\n  - name: a\n    tools: tools.py\n")
    return Desk.from_file(folder / "agent.yaml")


@pytest.fixture
def sent(tmp_path, monkeypatch):
    path = tmp_path / "sent.txt"
    path.touch()
    monkeypatch.setenv("SIZES_SENT", str(path))
    return lambda: path.read_text().split()


@pytest.fixture
def desk(tmp_path, sent):
    with desk_at(tmp_path) as desk:
        yield desk


@pytest.fixture(params=list(BACKENDS))
def any_desk(request, tmp_path, sent):
    url = BACKENDS[request.param](request, tmp_path)
    with desk_at(tmp_path, url) as desk:
        yield desk


def logged(desk, thread):
    return [body for _, body in desk.events(thread, 0, 1000)]


def test_a_500_kb_result_is_413_naming_the_call_and_the_thread_takes_a_new_turn(any_desk):
    with pytest.raises(ValueTooLarge) as caught:
        any_desk.send("t", "fetch 500000")
    assert (caught.value.status, caught.value.code) == (413, "too_large")
    assert caught.value.message == (
        f"the result of fetch (step 1) is {500000 + BODY:,} bytes as JSON, over the limit of 131,072 "
        "(settings.max_value_bytes in agent.yaml); it was not kept; "
        "the run ended failed, and the thread takes a new turn"
    )
    assert any_desk.storage.last_run("t").status == "failed"
    assert any(e["type"] == "too_large" and e["tool"] == "fetch" for e in logged(any_desk, "t"))
    assert any_desk.send("t", "fetch 3").steps[0].result == {"body": "xxx"}


def test_a_result_exactly_at_the_limit_is_kept_whole_and_one_byte_more_is_refused(any_desk):
    reply = any_desk.send("t", f"fetch {LIMIT - BODY}")
    assert reply.status == "done"
    assert json_size(any_desk.storage.journal(reply.run)[0].result) == LIMIT
    with pytest.raises(ValueTooLarge, match=f"fetch \\(step 1\\) is {LIMIT + 1:,} bytes"):
        any_desk.send("t", f"fetch {LIMIT - BODY + 1}")


def test_over_http_a_500_kb_result_is_a_413_json_error_and_the_next_turn_works(desk):
    with serving(make_app(desk)) as base, httpx.Client(base_url=base, timeout=30) as client:
        refused = client.post("/threads/t/messages", json={"text": "fetch 500000"})
        assert refused.status_code == 413
        body = refused.json()
        assert body["error"] == "too_large"
        assert "fetch (step 1)" in body["message"] and "settings.max_value_bytes" in body["message"]
        assert client.get("/threads/t/interrupts").json()["waiting"] == []
        again = client.post("/threads/t/messages", json={"text": "fetch 3"})
        assert again.status_code == 200 and again.json()["steps"][0]["status"] == "done"


def test_a_write_whose_result_is_too_large_ran_once_is_kept_done_and_is_never_sent_again(desk, sent):
    [pause] = desk.send("t", "post 500000").waiting
    with pytest.raises(ValueTooLarge) as caught:
        desk.confirm("t", "approve", waiting=pause.id, token=pause.token)
    assert "the result of post (step 1) is" in caught.value.message
    assert "post ran, and is kept as done without its result, so it is never sent again" in caught.value.message
    run = desk.storage.last_run("t")
    [entry] = desk.storage.journal(run.id)
    receipt = 500000 + len('{"receipt":""}')
    assert (entry.status, entry.result) == ("done", {"too_large": {"bytes": receipt, "limit": LIMIT}})
    assert run.status == "failed"
    assert desk.rollback("t").rollback["not_undone"][0]["tool"] == "post"
    assert desk.send("t", "fetch 1").status == "done"
    assert sent() == ["post"]


def test_arguments_over_the_limit_are_refused_before_anything_is_stored_naming_the_call(desk, sent):
    with pytest.raises(ValueTooLarge, match=r"the arguments of echo \(step 1\) are [\d,]+ bytes as JSON, over"):
        desk.send("t", "echo it", context={"text": "z" * 200000})
    assert desk.storage.last_run("t") is None
    assert desk.send("t", "echo it", context={"text": "short"}).status == "done"


def test_a_turn_is_kept_up_to_the_limit_and_one_past_it_is_refused_naming_the_turn(desk):
    desk.send("s", "echo it", context={"text": ""})
    empty = json_size(desk.storage.last_run("s").state)
    within = (LIMIT - empty) // 2  # the turn keeps the application's text twice: as given, and as echo's argument
    reply = desk.send("t", "echo it", context={"text": "z" * within})
    assert reply.status == "done"
    assert LIMIT - 1 <= json_size(desk.storage.get_run(reply.run).state) <= LIMIT
    over = r"this turn, with what the application gave it, is [\d,]+ bytes as JSON, over the limit"
    with pytest.raises(ValueTooLarge, match=over):
        desk.send("u", "echo it", context={"text": "z" * (within + 1)})
    assert desk.storage.last_run("u") is None


def test_a_step_calling_a_tool_with_arguments_over_the_limit_is_refused_naming_the_call(desk):
    with pytest.raises(ValueTooLarge, match=r"the arguments of echo \(step 1, call 1\) are"):
        desk.send("t", "relay 200000")
    assert desk.storage.last_run("t").status == "failed"
    assert not any(json_size(e) > LIMIT for e in logged(desk, "t"))
    assert desk.send("t", "relay 5").status == "done"


def test_an_answer_over_the_limit_is_refused_naming_the_call_and_the_question_still_waits(desk):
    [ask] = desk.send("t", "echo it").waiting
    with pytest.raises(ValueTooLarge, match=r"the answer to echo \(step 1\) is [\d,]+ bytes.*the question still waits"):
        desk.confirm("t", "answer", waiting=ask.id, value="z" * 200000, token=ask.token)
    assert desk.waiting("t") == [ask]
    assert desk.confirm("t", "answer", waiting=ask.id, value="fine", token=ask.token).status == "done"


def test_no_event_ever_exceeds_the_limit_even_an_undo_that_carries_its_call_and_result(desk, sent):
    pad = "p" * 40000
    [pause] = desk.send("t", "file 100000 and fetch 500000", context={"pad": pad}).waiting
    with pytest.raises(ValueTooLarge, match="fetch"):
        desk.confirm("t", "approve", waiting=pause.id, token=pause.token)
    assert sent() == ["file", "unpost"]
    events = logged(desk, "t")
    assert max(json_size(e) for e in events) <= LIMIT + ENVELOPE
    [undo] = [e for e in events if e["type"] == "step" and e["tool"] == "unpost"]
    assert undo["arguments"] == {"too_large": {"bytes": json_size(undo_arguments(desk)), "limit": LIMIT}}


def undo_arguments(desk):
    run = desk.storage.last_run("t")
    return next(e.arguments for e in desk.storage.journal(run.id) if e.key.endswith(".undo"))


def test_the_turn_itself_over_the_limit_is_refused_before_anything_runs(desk):
    with pytest.raises(ValueTooLarge, match="this turn"):
        desk.send("t", "fetch 1 " + "w" * 200000)
    assert desk.storage.last_run("t") is None
    assert json.dumps(desk.send("t", "fetch 1").steps[0].result) == '{"body": "x"}'


FLAWS = {"nan": "NaN or Infinity", "deep": "nested too deeply"}


@pytest.mark.parametrize("kind", list(FLAWS))
def test_over_http_a_read_result_no_store_can_keep_is_413_naming_the_call_and_the_next_turn_works(desk, kind):
    with serving(make_app(desk)) as base, httpx.Client(base_url=base, timeout=30) as client:
        refused = client.post("/threads/t/messages", json={"text": f"measure {kind}"})
        assert refused.status_code == 413
        assert refused.json()["message"] == (
            f"the result of measure (step 1) is not JSON a store can keep ({FLAWS[kind]}); it was not kept; "
            "the run ended failed, and the thread takes a new turn"
        )
        assert client.post("/threads/t/messages", json={"text": "fetch 3"}).status_code == 200
    assert desk.storage.last_run("t").status == "done"


@pytest.mark.parametrize("kind", list(FLAWS))
def test_over_http_a_write_whose_result_no_store_can_keep_ran_once_and_is_kept_done(desk, sent, kind):
    with serving(make_app(desk)) as base, httpx.Client(base_url=base, timeout=30) as client:
        [pause] = client.post("/threads/t/messages", json={"text": f"record {kind}"}).json()["waiting"]
        body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
        approved = client.post("/threads/t/resume", json=body)
        assert approved.status_code == 413
        assert "record ran, and is kept as done without its result, so it is never sent again" in approved.text
        assert client.get("/threads/t/interrupts").json()["waiting"] == []
    run = desk.storage.last_run("t")
    [entry] = desk.storage.journal(run.id)
    assert (run.status, entry.status, entry.result) == ("failed", "done", {"not_json": {"flaw": FLAWS[kind]}})
    assert desk.recover("t") == Recovery(False) and desk.storage.stale_runs(run.updated_at + 3600) == []
    assert sent() == ["record"]


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 3000])
def test_a_write_whose_result_nests_past_the_limit_ran_once_is_kept_done_and_undone(desk, sent, depth):
    with serving(make_app(desk)) as base, httpx.Client(base_url=base, timeout=30) as client:
        [pause] = client.post("/threads/t/messages", json={"text": f"stack {depth}"}).json()["waiting"]
        body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
        approved = client.post("/threads/t/resume", json=body)
        assert approved.status_code == 413
        assert "stack ran, and is kept as done without its result, so it is never sent again" in approved.text
    run = desk.storage.last_run("t")
    done = [(e.key, e.status, e.result) for e in desk.storage.journal(run.id)]
    assert done == [("1", "done", {"not_json": {"flaw": "nested too deeply"}}), ("1.undo", "done", {"undone": True})]
    assert sent() == ["stack", "unpost"]


def test_a_result_nested_to_the_limit_is_kept_whole_through_the_reply_and_the_rollback(desk, sent):
    with serving(make_app(desk, operator_token="op")) as base, httpx.Client(base_url=base, timeout=30) as client:
        [pause] = client.post("/threads/t/messages", json={"text": f"stack {MAX_DEPTH}"}).json()["waiting"]
        body = {"interrupt_id": pause["id"], "decision": "approve", "token": pause["token"]}
        approved = client.post("/threads/t/resume", json=body)
        assert approved.status_code == 200 and approved.json()["steps"][-1]["status"] == "done"
        assert json_depth(approved.json()["steps"][-1]["result"]) == MAX_DEPTH
        rolled = client.post("/threads/t/rollback", headers={"Stalwart-Operator-Token": "op"})
        assert rolled.status_code == 200, rolled.text
    assert sent() == ["stack", "unpost"]


def json_depth(value):
    return 1 + max(map(json_depth, value.values()), default=0) if isinstance(value, dict) else 0
