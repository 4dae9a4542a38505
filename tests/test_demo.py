"""The shop's demo prints what the README shows for the confirmation."""

import subprocess
import sys

from .conftest import ROOT
from .test_readme import programs


def test_demo_prints_the_readmes_lines():
    [(_, shown)] = [(code, shown) for code, shown in programs() if "desk.confirm" in code]
    done = subprocess.run(
        [sys.executable, "examples/shop/demo.py"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
