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
SEALED_CURSOR = """
# The inbox's cursor is sealed for the person it was given to: a cursor its pattern allows is still the
# documented 400 unless the inbox gave it to this caller, so a well-formed one is not expected to be taken.
[[operations]]
include-path = "/interrupts"
include-method = "GET"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429", "5xx"]
"""


@pytest.mark.timeout(300)
def test_no_route_fails_or_answers_outside_its_schema(tmp_path):
    command = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or shutil.which("schemathesis")
    if command is None:
        pytest.skip("schemathesis is not installed (it is in the dev extra)")
    app = make_app(SHOP, storage=f"sqlite:///{tmp_path / 'runs.db'}", stream_mode="once", operator_token=OPERATOR)
    config = tmp_path / "schemathesis.toml"
    config.write_text(SEALED_CURSOR)
    with serving(app) as base:
        done = subprocess.run(
            [
                command,
                "--config-file",
                str(config),
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
