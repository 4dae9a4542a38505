"""The chapter's shop example prints the chapter's lines."""

import subprocess
import sys

from .conftest import ROOT

CHAPTER = """\
{"card": "visa-0019", "customer": "c-208", "order_id": "4411", "status": "unpaid", "total": "40.00"}
charge_card | Run charge_card? | ['approve', 'skip', 'cancel_all']
   {'name': 'amount', 'value': 40, 'origin': 'typed'}
   {'name': 'order_id', 'value': '4411', 'origin': 'typed'}
{"amount": "40", "charge_id": "ch-4411", "order_id": "4411"}
"""


def test_demo_prints_the_chapters_five_lines():
    done = subprocess.run([sys.executable, "examples/shop/demo.py"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == CHAPTER
