"""What `stalwart serve` reads of a request before any route runs: headers within a bound, and a body the client
stopped sending mid-way dropped quietly, over real sockets."""

import select
import socket
import time
from pathlib import Path

from stalwart_agents.storage.sqlite import SqliteStorage

from .conftest import SHOP
from .server import stalwart_serve

MB = 1024 * 1024
CHUNK = 64 * 1024


def rss(pid: int) -> int:
    """The process's resident memory, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def answered(sock: socket.socket) -> bool:
    """Whether the server has answered (or closed the connection) yet."""
    return bool(select.select([sock], [], [], 0)[0])


def test_a_64_mb_header_is_refused_fast_without_being_read(tmp_path):
    with stalwart_serve(SHOP, "--storage", f"sqlite:///{tmp_path / 'runs.db'}") as (base, process):
        before = rss(process.pid)
        port = int(base.rsplit(":", 1)[1])
        started, sent = time.monotonic(), 0
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
            try:
                while sent < 64 * MB and not answered(sock):
                    sock.sendall(b"a" * CHUNK)
                    sent += CHUNK
                sock.sendall(b"\r\n\r\n")
                answer = sock.recv(4096)
            except (BrokenPipeError, ConnectionResetError):
                answer = b""
        took = time.monotonic() - started
        grown = rss(process.pid) - before
    assert not answer.startswith(b"HTTP/1.1 200"), answer[:100]
    assert answer == b"" or answer.startswith((b"HTTP/1.1 400", b"HTTP/1.1 431")), answer[:100]
    assert sent < 16 * MB, f"the server took {sent:,} bytes of one header"
    assert took < 3, f"refusing took {took:.1f} s"
    assert grown < 16 * MB, f"the server grew {grown:,} bytes"


def test_headers_within_64_kib_are_read(tmp_path):
    with stalwart_serve(SHOP, "--storage", f"sqlite:///{tmp_path / 'runs.db'}") as (base, _):
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            filler = b"".join(b"X-Pad-%d: %s\r\n" % (n, b"a" * 1000) for n in range(50))
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + filler + b"Connection: close\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")


def test_a_client_that_hangs_up_mid_body_leaves_one_info_line_and_runs_nothing(tmp_path):
    served = stalwart_serve(SHOP, "--storage", f"sqlite:///{tmp_path / 'runs.db'}", "--log-level", "debug")
    with served as (base, process):
        port = int(base.rsplit(":", 1)[1])
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                head = (
                    b"POST /threads/u-1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                )
                sock.sendall(head + b'{"text": "look up order 4411')
                time.sleep(0.2)
        time.sleep(0.5)
    assert process.stdout is not None
    log = process.stdout.read()
    assert "ERROR" not in log and "Traceback" not in log and "WARNING" not in log, log
    said = [line for line in log.splitlines() if "/threads/{thread}/messages" in line]
    assert len(said) == 3 and all(" INFO request " in line and "status=400" in line for line in said), log
    store = SqliteStorage(tmp_path / "runs.db")
    assert store.last_run("u-1") is None and store.events("u-1") == []
    store.close()
