"""examples/mcp runs as docs/mcp.md says, and shows what the page says it shows."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_mcp_example_runs_and_shows_each_card():
    shown = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "mcp" / "demo.py")], capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0, shown.stderr
    sections = dict(part.split("\n", 1) for part in shown.stdout.split("--- ")[1:])
    assert '"messages": {\n      "m1"' in sections["a read runs without asking"]
    assert '"title": "Mail bo@example.com about the invoice"' in sections["a write waits for a person"]
    assert '"message_id": "sent-1"' in sections["approved: it ran once"]
    assert '"irreversible": true' in sections["a destructive tool is irreversible on its card"]
    assert '"tainted_call: untrusted:fetch_page"' in sections["an open-world result taints the write after it"]
