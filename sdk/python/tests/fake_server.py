"""A scripted HTTP server for answers the real app gives only under load (429, 503)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Script = Callable[[int, str, Any], "tuple[int, dict[str, str], Any]"]


class FakeServer:
    def __init__(self, script: Script) -> None:
        self.requests: list[tuple[float, str, Any]] = []
        self.script = script
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"null")
                with lock:
                    outer.requests.append((time.monotonic(), self.path, body))
                    index = len(outer.requests) - 1
                status, headers, answer = outer.script(index, self.path, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST
            do_DELETE = do_POST

            def log_message(self, *args: Any) -> None:
                pass

        lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
