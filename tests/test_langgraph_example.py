"""examples/langgraph as its README says: the app served by its uvicorn command, then each curl of the page."""

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("langgraph")

from .conftest import ROOT
from .server import free_port, wait_until_healthy

EXAMPLE = ROOT / "examples" / "langgraph"


def shell_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", (EXAMPLE / "README.md").read_text(), re.S)


def not_activated(checkout: Path) -> dict[str, str]:
    """The environment of a shell where the README's install ran in ``checkout`` (its ``.venv`` is this test's own
    virtual environment) and was never activated: nothing of the environment on PATH."""
    (checkout / ".venv").symlink_to(sys.prefix)
    venv_bin = os.path.join(sys.prefix, "bin")
    path = os.pathsep.join(part for part in os.environ["PATH"].split(os.pathsep) if part != venv_bin)
    return {**os.environ, "PATH": path, "VIRTUAL_ENV": ""}


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="the README's commands use curl and jq")
def test_the_readmes_commands_run_the_example_as_it_says(tmp_path):
    [serve] = [block for block in shell_blocks() if "uvicorn" in block]
    curls = "\n".join(block for block in shell_blocks() if "curl" in block)
    port = str(free_port())
    served = serve.strip().replace("examples/langgraph", str(EXAMPLE)).replace("8000", port)
    env = not_activated(tmp_path)
    server = subprocess.Popen(
        ["bash", "-c", served],
        cwd=tmp_path,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_healthy(f"http://127.0.0.1:{port}")
        done = subprocess.run(
            ["bash", "-ec", curls.replace("8000", port)], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)
    said = done.stdout
    assert done.returncode == 0, done.stderr
    assert '"kind": "confirm"' in said and '"tool": "refund_order"' in said and '"origin": "model"' in said
    assert '"text": "Done: refunded 40 to order 4411."' in said and '"status": "done"' in said
    assert said.count('"interrupt_stale"') == 1 and '"question": "Which order should I refund?"' in said
    assert '"edit": "integer"' in said and '"edits.order_id: a person may change only amount' in said
    assert '"text": "Done: refunded 25 to order 4413."' in said and '"origin": "edited"' in said
    assert '"value": "4412"' in said and '"forbidden"' in said
    assert '"text": "Nothing was refunded: cancelled by the operator."' in said and '"status": "complete"' in said
