"""What the client says about delivery, and in which words: a refusal with the server's reason, a
server that cannot be reached, a full queue, and at close what was not delivered and to where.
The TypeScript SDK (src/report.ts) writes the same lines."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

log = logging.getLogger("floorline")

_NOUNS = {
    "passes": ("pass receipt", "pass receipts"),
    "boundaries": ("boundary receipt", "boundary receipts"),
    "originals": ("cached original", "cached originals"),
    "traces": ("trace", "traces"),
}
MAX_ISSUES_SHOWN = 3
#: Refusals logged one line each, up to this many; beyond it they are counted (close() answers them).
MAX_REFUSAL_LINES = 10


@dataclass(frozen=True)
class DeliveryReport:
    """What became of everything recorded, as close() answers it."""

    #: Stored by the server (or already stored: resends are idempotent).
    delivered: int
    #: Refused by the server (a 4xx other than 429, or a 500); never sent again.
    refused: int
    #: Dropped, oldest first, because the queue was full.
    dropped: int
    #: Not delivered by the end of close's wait (the server unreachable or busy), or recorded after close.
    undelivered: int

    @property
    def ok(self) -> bool:
        """Nothing refused, dropped or undelivered."""
        return self.refused + self.dropped + self.undelivered == 0

    def __bool__(self) -> bool:
        return self.ok

    def to_dict(self) -> dict[str, Any]:
        return {"delivered": self.delivered, "refused": self.refused, "dropped": self.dropped, "undelivered": self.undelivered, "ok": self.ok}


@dataclass
class DeliveryError:
    """What could not be delivered and why, handed to `on_error`. `status` is 0 when no answer came;
    `code` is the server's error code, or `undelivered` / `closed` for what the client gave up on."""

    kind: str
    status: int
    message: str
    items: list[dict[str, Any]]
    body: Any = None
    code: str = ""
    issues: list[dict[str, Any]] = field(default_factory=list)


class ReceiptsLost(Exception):
    """What close(raise_on_loss=True) raises when anything was not delivered."""

    code = "receipts_lost"

    def __init__(self, report: DeliveryReport, where: str) -> None:
        super().__init__(loss_line(report, where, None).removeprefix("floorline: "))
        self.report = report


def count(n: int, kind: str) -> str:
    one, many = _NOUNS.get(kind, ("item", "items"))
    return f"{n} {one if n == 1 else many}"


def refusal_line(where: str, error: DeliveryError) -> str:
    shown = [f"{i.get('path')}: {i.get('message')}" for i in error.issues[:MAX_ISSUES_SHOWN] if isinstance(i, dict)]
    if len(error.issues) > MAX_ISSUES_SHOWN:
        shown.append(f"and {len(error.issues) - MAX_ISSUES_SHOWN} more")
    issues = f" [{'; '.join(shown)}]" if shown else ""
    return f"floorline: {where} refused {count(len(error.items), error.kind)} ({error.status} {error.code}): {error.message}{issues}"


def unreachable_line(problem: str, waiting: int) -> str:
    """`problem` names the server: "cannot reach <url> (<why>)"."""
    return f"floorline: {problem}; retrying, {waiting} items waiting"


def reached_line(where: str) -> str:
    return f"floorline: {where} answers again"


def full_line(max_queue: int) -> str:
    return f"floorline: the queue is full ({max_queue} items); dropping the oldest until the server catches up"


def loss_line(report: DeliveryReport, where: str, problem: str | None) -> str:
    total = report.delivered + report.refused + report.dropped + report.undelivered
    why = f" (last problem: {problem})" if problem and report.undelivered else ""
    return (
        f"floorline: {report.delivered} of {total} items delivered to {where}; "
        f"{report.refused} refused, {report.dropped} dropped, {report.undelivered} undelivered{why}"
    )


def warn(line: str) -> None:
    log.warning("%s", line)


def default_on_error(where: str) -> Callable[[DeliveryError], None]:
    """The on_error used when the agent gives none: each refusal logged with its reason, up to a
    bound, so a rerun that collides on every receipt does not flood the terminal."""
    printed = 0

    def on_error(error: DeliveryError) -> None:
        nonlocal printed
        # Undelivered at close: the summary close() logs says it, with the server's address.
        if error.code == "undelivered":
            return
        printed += 1
        if printed <= MAX_REFUSAL_LINES:
            warn(f"floorline: {count(len(error.items), error.kind)} recorded after close(); not sent" if error.code == "closed" else refusal_line(where, error))
        elif printed == MAX_REFUSAL_LINES + 1:
            warn("floorline: more refusals are counted, not printed; close() answers the counts")

    return on_error
