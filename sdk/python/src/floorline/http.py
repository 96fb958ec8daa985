"""One HTTP exchange with Floorline over urllib, answered as data rather than exceptions."""

from __future__ import annotations

import email.utils
import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from ._version import __version__ as _version

USER_AGENT = f"floorline-python/{_version}"
#: Statuses a resend may cure: the server busy or its database away (429, 503), or a proxy in
#: front of it without an upstream for a moment (502, 504). Any other answer would repeat.
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})


@dataclass
class Answer:
    """status 0 means the request never got an answer (refused, reset, timed out)."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    problem: str = ""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def retryable(self) -> bool:
        return self.status == 0 or self.status in RETRYABLE_STATUSES

    def retry_after(self) -> float | None:
        """Seconds the server asked us to wait, from a delta or an HTTP date."""
        value = self.headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())

    def error_message(self) -> str:
        if self.status == 0:
            return self.problem
        error = self.body.get("error") if isinstance(self.body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return f"{self.status} {error.get('code', '')}: {error['message']}"
        return f"{self.status}: {self.problem or self.body!r}"


def _decode(raw: bytes, content_type: str) -> Any:
    if "json" in content_type:
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError:
            pass
    return raw.decode("utf-8", "replace")


class Transport:
    """Sends JSON to one Floorline; a fresh connection per call keeps it safe across threads."""

    def __init__(self, url: str, api_key: str | None, timeout: float = 10.0) -> None:
        self.base = url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def url(self, path: str, query: dict[str, Any] | None = None) -> str:
        if query:
            clean = {k: v for k, v in query.items() if v is not None}
            if clean:
                return f"{self.base}{path}?{urllib.parse.urlencode(clean)}"
        return f"{self.base}{path}"

    def request(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None, timeout: float | None = None) -> Answer:
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            headers["Content-Type"] = "application/json; charset=utf-8"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url(path, query), data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as response:
                raw = response.read()
                return Answer(response.status, _decode(raw, response.headers.get("content-type", "")), _lower(response.headers))
        except urllib.error.HTTPError as error:
            try:
                raw = error.read()
            except (OSError, http.client.HTTPException):
                raw = b""
            content_type = error.headers.get("content-type", "") if error.headers else ""
            return Answer(error.code, _decode(raw, content_type), _lower(error.headers), error.reason or "")
        except (OSError, http.client.HTTPException, ValueError) as error:
            # URLError, refused and reset connections, timeouts and truncated answers alike.
            return Answer(0, problem=f"cannot reach {self.base} ({_why(error)})")


def _why(error: BaseException) -> str:
    """The reason under urllib's wrapping: "[Errno 111] Connection refused", "timed out"."""
    reason = getattr(error, "reason", None)
    inner = reason if isinstance(reason, BaseException) else error
    text = getattr(inner, "strerror", None) or str(inner) or type(inner).__name__
    return str(text)


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()} if headers else {}
