"""Every README example that shows output shows what the code prints.

The README marks them so: a ```python block followed by a ```text block (with at most "It prints:" between) is a
program and its output; a ```console block is commands (``$ ...``) each followed by its output, where ``...`` in a
line stands for text that differs from machine to machine; a ```log block is lines as the service logs them.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
import shlex
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from stalwart_agents.logs import FIELDS, JsonLines, TextLines

from .conftest import ROOT, present
from .server import free_port

README = (ROOT / "README.md").read_text()
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
BETWEEN_PROGRAM_AND_OUTPUT = ("", "It prints:")
BIN = Path(sys.executable).parent


def blocks() -> list[tuple[str, str, int, int]]:
    return [(m.group(1), m.group(2), m.start(), m.end()) for m in BLOCK.finditer(README)]


def programs() -> list[tuple[str, str]]:
    """Each python block with the text block that shows what it prints."""
    found = blocks()
    return [
        (code, shown)
        for (kind, code, _, end), (next_kind, shown, start, _) in itertools.pairwise(found)
        if kind == "python" and next_kind == "text" and README[end:start].strip() in BETWEEN_PROGRAM_AND_OUTPUT
    ]


def commands() -> list[tuple[str, list[str]]]:
    """Each ``$ command`` of a console block, with the lines shown after it."""
    found = []
    for kind, text, _, _ in blocks():
        if kind == "console":
            for chunk in text.split("$ ")[1:]:
                command, *shown = chunk.rstrip("\n").split("\n")
                found.append((command, shown))
    return found


def same(shown: str, printed: str) -> bool:
    """A shown line matches a printed one, ``...`` standing for any text."""
    return re.fullmatch(".*".join(re.escape(part) for part in shown.split("...")), printed) is not None


def test_the_readme_marks_its_examples():
    assert len(programs()) >= 1 and len(commands()) >= 1
    assert any(kind == "log" for kind, *_ in blocks())


@pytest.mark.parametrize(("code", "shown"), programs(), ids=lambda value: value.splitlines()[0][:40])
def test_each_program_prints_what_the_readme_shows(code, shown):
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown


@pytest.mark.parametrize(("command", "shown"), commands(), ids=lambda value: str(value)[:40])
def test_each_command_prints_what_the_readme_shows(command, shown, tmp_path):
    """`stalwart serve` runs until stopped: it is started on a free port (the 8700 shown is replaced by it) with its
    default store in a throwaway state folder (the shown path is elided with ...), and stopped once it has printed as
    many lines as shown."""
    words = shlex.split(command)
    words[0] = str(BIN / words[0]) if (BIN / words[0]).exists() else words[0]
    if command.startswith("stalwart serve"):
        port = free_port()
        words += ["--port", str(port)]
        shown = [line.replace(":8700/", f":{port}/") for line in shown]
        env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
        process = subprocess.Popen(
            words, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        try:
            printed = [present(process.stdout).readline().rstrip("\n") for _ in shown]
        finally:
            process.terminate()
            process.wait(timeout=10)
    else:
        printed = subprocess.run(words, cwd=ROOT, capture_output=True, text=True, timeout=120).stdout.splitlines()
    assert len(printed) == len(shown) and all(same(s, p) for s, p in zip(shown, printed, strict=True)), printed


def logged(level: str, message: str, at: str, fields: dict) -> logging.LogRecord:
    """The record the service logs for ``message`` and ``fields`` at the time ``at``."""
    record = logging.LogRecord("stalwart_agents", logging.getLevelName(level.upper()), __file__, 1, message, None, None)
    record.created = datetime.fromisoformat(at).timestamp()
    setattr(record, FIELDS, fields)
    return record


def test_the_log_lines_shown_are_written_as_the_service_writes_them():
    [text] = [text for kind, text, _, _ in blocks() if kind == "log"]
    plain, as_json = text.splitlines()
    shown = json.loads(as_json)
    fields = {k: v for k, v in shown.items() if k not in ("time", "level", "message")}
    assert JsonLines().format(logged(shown["level"], shown["message"], shown["time"], fields)) == as_json
    at, level, rest = plain.split(" ", 2)
    message, pairs = present(re.fullmatch(r"(.*?) (\w+=.*)", rest)).groups()
    fields = {
        k: json.loads(v) if v.startswith('"') else v for k, v in re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)', pairs)
    }
    assert TextLines().format(logged(level, message, at, fields)) == plain


def test_the_first_two_commands_name_what_exists():
    first = BLOCK.search(README)
    assert first is not None and first.group(1) == ""
    install_and_serve, run_every_test = first.group(2).splitlines()
    assert "pip install -e ." in install_and_serve and (ROOT / "examples/shop/agent.yaml").is_file()
    assert install_and_serve.endswith("stalwart serve examples/shop/agent.yaml")
    assert run_every_test == "./scripts/test" and (ROOT / "scripts/test").stat().st_mode & 0o111
