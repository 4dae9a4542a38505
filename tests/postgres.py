"""A throwaway PostgreSQL cluster for the tests: Debian's binaries, a temp folder, a free port of 127.0.0.1.

As root the server runs as the ``postgres`` user (initdb refuses root); any
other user runs it as itself.  Authentication is ``trust`` for the user
``stalwart``, so a URL may carry any password.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

USER = "stalwart"
MISSING = "no PostgreSQL binaries under /usr/lib/postgresql/*/bin: apt-get install postgresql"


def binaries() -> Path | None:
    """The newest /usr/lib/postgresql/*/bin that has initdb and pg_ctl, or None."""
    found = [Path(path) for path in glob.glob("/usr/lib/postgresql/*/bin") if Path(path, "pg_ctl").exists()]
    found.sort(key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0)
    return found[-1] if found and Path(found[-1], "initdb").exists() else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """One initdb'd data folder and the server on it; ``start()`` again after ``stop()`` keeps the data and port."""

    def __init__(self) -> None:
        bin_dir = binaries()
        if bin_dir is None:
            raise FileNotFoundError(MISSING)
        self.bin_dir = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="stalwart-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8", "--locale=C", "-N")

    def _run(self, program: str, *args: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self._as_postgres else []
        done = subprocess.run([*prefix, str(self.bin_dir / program), *args], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{program} {' '.join(args)} failed:\n{done.stdout}{done.stderr}{tail}")

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.folder}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "-t",
            "30",
            "-o",
            options,
            "start",
        )

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "30", "stop")

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, db: str = "postgres", *, password: str | None = None) -> str:
        user = USER if password is None else f"{USER}:{password}"
        return f"postgresql://{user}@127.0.0.1:{self.port}/{db}"

    def create_database(self, name: str) -> str:
        """Create database ``name`` (a plain identifier) and return its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """A started cluster, stopped and deleted afterwards; skips the test when PostgreSQL is not installed."""
    if binaries() is None:
        pytest.skip(MISSING)
    cluster = Cluster()
    try:
        cluster.start()
        yield cluster
        cluster.stop()
    finally:
        cluster.remove()


class Turns:
    """A TCP relay between a client and the cluster that counts the client's round trips: each time the server
    answers after the client has sent something since the server last answered.  A client that sends statements
    together (a pipeline) and then waits for them all counts one."""

    def __init__(self, target: int) -> None:
        self._target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.count, self._client_spoke = 0, False
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, url: str) -> str:
        """``url``, through this relay."""
        return url.replace(f":{self._target}/", f":{self.port}/")

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self._target))
            for end in (client, server):
                end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._relay, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._relay, args=(server, client, False), daemon=True).start()

    def _relay(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        try:
            while data := source.recv(65536):
                with self._lock:
                    if from_client:
                        self._client_spoke = True
                    elif self._client_spoke:
                        self.count, self._client_spoke = self.count + 1, False
                sink.sendall(data)
        except OSError:
            pass
        finally:
            sink.close()

    def close(self) -> None:
        self._listener.close()
