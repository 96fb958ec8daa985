"""Flush at exit, as the TypeScript SDK does: at interpreter exit (atexit) and on SIGTERM, once per
process however many clients there are. Python ends on SIGTERM without running atexit, so a
handler is installed, only where nobody else handles the signal (its handler is the default)
and only from the main thread; after the flush the signal is raised again with the default
handler, so the process ends by it as it would have without us."""

from __future__ import annotations

import atexit
import os
import signal
import threading
from typing import Any, Protocol


class _Closable(Protocol):
    def _close_at_exit(self) -> Any: ...


# Held until closed: a client the agent no longer refers to still has receipts to deliver.
_clients: dict[_Closable, None] = {}
_lock = threading.Lock()
_installed = False


def _close_all() -> None:
    with _lock:
        clients = list(_clients)
        _clients.clear()

    def close(client: _Closable) -> None:
        try:
            client._close_at_exit()
        except Exception:  # noqa: BLE001 - one client's trouble must not keep the others from flushing
            pass

    if len(clients) == 1:
        close(clients[0])
        return
    # Side by side, so the wait at exit is one client's, however many there are; one after the
    # other where the interpreter no longer starts threads (atexit from Python 3.12).
    started = []
    for client in clients:
        thread = threading.Thread(target=close, args=(client,), daemon=True)
        try:
            thread.start()
            started.append(thread)
        except RuntimeError:
            close(client)
    for thread in started:
        thread.join()


def _on_sigterm(signum: int, frame: Any) -> None:
    _close_all()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def _install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(_close_all)
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)


def watch_exit(client: _Closable) -> None:
    """Closes `client` at exit, unless it is unwatched (closed) first."""
    with _lock:
        _clients[client] = None
    _install()


def unwatch_exit(client: _Closable) -> None:
    with _lock:
        _clients.pop(client, None)
