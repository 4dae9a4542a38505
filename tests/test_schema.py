"""Hostile input, generated from the service's own OpenAPI document: no 5xx, no answer that breaks its schema.

schemathesis runs as its own command (every route; generated bodies, headers and paths;
its coverage and fuzzing phases) against a real server on 127.0.0.1.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stalwart_agents.serve import make_app

from .conftest import SHOP
from .server import serving

OPERATOR = "schema-operator"


@pytest.mark.timeout(300)
def test_no_route_fails_or_answers_outside_its_schema(tmp_path):
    command = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or shutil.which("schemathesis")
    if command is None:
        pytest.skip("schemathesis is not installed (it is in the dev extra)")
    app = make_app(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}", stream_mode="once", operator_token=OPERATOR)
    with serving(app) as base:
        done = subprocess.run(
            [
                command,
                "run",
                f"{base}/openapi.json",
                "--checks",
                "all",
                "--max-examples",
                "30",
                "-H",
                f"Authorization: Bearer {OPERATOR}",
                "--no-color",
            ],
            capture_output=True,
            text=True,
            timeout=280,
        )
    assert done.returncode == 0, done.stdout[-4000:]
    assert " passed" in done.stdout and "failed" not in done.stdout.splitlines()[-1]
