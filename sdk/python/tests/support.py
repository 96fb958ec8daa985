"""The built app as a real server process, as test/support/app-server.ts starts it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from conftest import REPO


def free_port() -> int:
    given = os.environ.get("FLOORLINE_PY_PORT")
    if given:
        return int(given)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_command() -> list[str]:
    """`npm start` as package.json runs it, without npm in between, so SIGTERM reaches the server."""
    script = REPO / "scripts" / "start.ts"
    if script.exists():
        return ["node", "--import", "tsx/esm", str(script)]
    return ["node", str(REPO / "scripts" / "start.mjs")]


class Server:
    def __init__(self, data_dir: Path, port: int | None = None, env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = env or {}
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir.parent / f"server-{self.port}.log"

    def start(self, timeout: float = 600.0) -> None:
        # The start script builds first when the build is stale, hence the long first wait. On a
        # CI machine running every stage at once a start took 216 s, and then its event loop
        # answered health after 2-11 s: each check waits long enough to be answered.
        env = {**os.environ, "HOST": "127.0.0.1", "FLOORLINE_DATA_DIR": str(self.data_dir), "FLOORLINE_DEMO": "0", "DATABASE_URL": "", "NEXT_TELEMETRY_DISABLED": "1", **self.env}
        out = open(self.log, "ab")
        self.process = subprocess.Popen([*start_command(), "--port", str(self.port)], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited:\n{self.log.read_text(errors='replace')[-4000:]}")
            try:
                with urllib.request.urlopen(f"{self.base}/api/v1/health", timeout=15) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"server not healthy:\n{self.log.read_text(errors='replace')[-4000:]}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.base}{path}", timeout=30) as r:
            return json.loads(r.read())

    def post(self, path: str, body: Any, method: str = "POST") -> tuple[int, Any]:
        req = urllib.request.Request(f"{self.base}{path}", data=json.dumps(body).encode(), method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")
