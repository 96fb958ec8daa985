"""Which floor a chain judges by. One order in both SDKs: a policy given in code (for the chain,
or for its class in the client's `policies`) wins; else the server's policy for the class, once
read; else the built-in conservative default (the server's own for a class it does not know).
A class given in code is never read from the server."""

from __future__ import annotations

import logging
import threading
import urllib.parse
from typing import Any, Mapping

from .http import Transport
from .results import Policy, default_policy

log = logging.getLogger("floorline")


def as_given(policy: Any, content_class: str) -> Policy:
    """A policy given in code: its class's name, and no version (none of the server's judged by it)."""
    if isinstance(policy, Policy):
        return policy
    if not isinstance(policy, Mapping):
        raise TypeError(f"policies: the policy for {content_class!r} must be a mapping or a Policy, not {type(policy).__name__}")
    return Policy.from_wire({**dict(policy), "version": None}, content_class)


class Policies:
    def __init__(self, transport: Transport, given: Mapping[str, Any] | None, fetch: bool, wait: float) -> None:
        self._transport = transport
        self._given = {name: as_given(policy, name) for name, policy in (given or {}).items()}
        self._fetch = fetch
        self.wait = wait
        self._lock = threading.Lock()
        self._served: dict[str, Policy] = {}
        #: Per class, set when its read in progress has ended.
        self._reads: dict[str, threading.Event] = {}
        #: Classes to read again at the next ready(): the last read failed, or a receipt named another version.
        self._stale: set[str] = set()
        #: Classes whose first decision has waited for the read: later ones never wait.
        self._waited: set[str] = set()

    def now(self, content_class: str) -> Policy:
        """The class's policy as known now. The first decision for a class waits for its read up
        to `wait` seconds, so a loop that starts at once judges by the server's floor."""
        given = self._given.get(content_class)
        if given is not None:
            return given
        with self._lock:
            known = self._served.get(content_class)
            first = content_class not in self._waited
            self._waited.add(content_class)
        if known is None:
            read = self.start(content_class)
            if read is not None and first and self.wait > 0:
                read.wait(self.wait)
                with self._lock:
                    known = self._served.get(content_class)
        return known or default_policy(content_class)

    def ready(self, content_class: str) -> Policy:
        """The policy once the server has answered for the class (asked again when the last read
        failed), or after at most `wait` seconds."""
        read = self.start(content_class, again=True)
        if read is not None and self.wait > 0:
            read.wait(self.wait)
        with self._lock:
            self._waited.add(content_class)
        return self.now(content_class)

    def is_given(self, content_class: str) -> bool:
        return content_class in self._given

    def start(self, content_class: str, again: bool = False) -> threading.Event | None:
        """Starts reading the class's policy unless a read is under way or done (or, with
        `again`, done and failed)."""
        if not self._fetch or content_class in self._given:
            return None
        with self._lock:
            read = self._reads.get(content_class)
            if read is not None and not (again and read.is_set() and content_class in self._stale):
                return read
            read = self._reads[content_class] = threading.Event()
            self._stale.discard(content_class)

        def fetch() -> None:
            try:
                if self.load(content_class) is None:
                    with self._lock:
                        self._stale.add(content_class)
            except Exception:  # noqa: BLE001 - a background read must never surface
                log.exception("floorline: reading the policy failed")
            finally:
                read.set()

        threading.Thread(target=fetch, name="floorline-policy", daemon=True).start()
        return read

    def load(self, content_class: str) -> Policy | None:
        """Reads the class's policy from the server now; None when it could not be read."""
        answer = self._transport.request("GET", f"/api/v1/policies/{urllib.parse.quote(content_class, safe='')}")
        if not (answer.ok and isinstance(answer.body, dict)):
            log.info("floorline: policy for %s not read (%s); using the default floor", content_class, answer.error_message())
            return None
        try:
            policy = Policy.from_wire({"version": 0, **answer.body}, content_class)
        except (ValueError, TypeError) as error:
            log.warning("floorline: the server's policy for %s is unreadable: %s", content_class, error)
            return None
        with self._lock:
            self._served[content_class] = policy
        return policy

    def notice_version(self, content_class: str, version: int) -> None:
        """The server says which policy version judged a receipt: another one than known means read again."""
        if content_class in self._given:
            return
        with self._lock:
            known = self._served.get(content_class)
            read = self._reads.get(content_class)
            if known is None or known.version == version or read is None or not read.is_set():
                return
            self._stale.add(content_class)
        self.start(content_class, again=True)
