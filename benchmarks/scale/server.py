"""Processes and HTTP for the benchmarks: a juror's browser, gunicorn, a Celery worker."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

from .database import HOST, SetupError

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


class Browser:
    """One juror's HTTP client: a connection to 127.0.0.1 and a cookie jar."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)
        self.cookies: dict[str, str] = {}

    def send(
        self, method: str, path: str, *, form: dict | None = None, headers: dict | None = None
    ) -> tuple[int, bytes]:
        sent = {}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        sent.update(headers or {})
        try:
            self.conn.request(method, path, body=body, headers=sent)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            raise
        for header in response.headers.get_all("Set-Cookie") or []:
            cookie = SimpleCookie()
            cookie.load(header)
            for name, morsel in cookie.items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        if response.will_close:
            self.conn.close()
        return response.status, data

    def close(self) -> None:
        self.conn.close()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _executable(name: str) -> list[str]:
    found = BIN / name
    return [str(found)] if found.exists() else [sys.executable, "-m", name]


class Gunicorn:
    """gunicorn ioleval.wsgi on a free port of 127.0.0.1, stopped by stop() whatever happens."""

    def __init__(self, workers: int, tmp: Path) -> None:
        self.port = free_port()
        self.log = tmp / "gunicorn.log"
        self.access = tmp / "gunicorn-access.log"
        cmd = _executable("gunicorn") + [
            "ioleval.wsgi",
            "--workers",
            str(workers),
            "--bind",
            f"{HOST}:{self.port}",
            "--access-logfile",
            str(self.access),
            "--access-logformat",
            "%(m)s %(U)s %(s)s %(D)s",
            "--log-level",
            "warning",
            "--timeout",
            "60",
        ]
        env = dict(os.environ)  # DJANGO_SETTINGS_MODULE, DATABASE_URL, DEBUG, ALLOWED_HOSTS
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT
            )

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SetupError(
                    f"gunicorn exited with {self.process.returncode}:\n{tail(self.log)}"
                )
            try:
                status, _ = Browser(self.port).send("GET", "/login/")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise SetupError(f"gunicorn did not answer within {timeout:.0f} s:\n{tail(self.log)}")

    def access_size(self) -> int:
        return self.access.stat().st_size if self.access.exists() else 0

    def server_times_ms(self, offset: int, marker: str = "/marks/") -> list[float]:
        """Return the server time (ms) of the POSTs logged after `offset` whose URL has marker."""
        with open(self.access, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
        times = []
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[0] == "POST" and marker in parts[1]:
                times.append(int(parts[3]) / 1000)
        return times

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: graceful shutdown of the master and workers
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


class CeleryWorker:
    """celery -A ioleval worker --pool=prefork --concurrency=1 on a private queue."""

    def __init__(self, name: str, queues: list[str], tmp: Path) -> None:
        self.log = tmp / f"celery-{name}.log"
        cmd = _executable("celery") + [
            "-A",
            "ioleval",
            "worker",
            "--pool=prefork",
            "--concurrency=1",
            "--prefetch-multiplier=1",
            "-Q",
            ",".join(queues),
            "-n",
            f"{name}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=warning",
        ]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                cmd, cwd=REPO, env=dict(os.environ), stdout=log, stderr=subprocess.STDOUT
            )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: warm shutdown
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
