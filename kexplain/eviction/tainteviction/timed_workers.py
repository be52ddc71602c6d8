"""The controller's TimedWorkerQueue (`timed_workers.go`): one worker per pod key, created at one
time and firing at another; adding work for a key that has a worker does nothing, and a worker
whose delay is not positive fires at once. One pass of kexplain's runs every worker to its end,
in the order of their firing times (ties: in the order they were added)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class TimedWorker:
    key: str                # namespace/name
    created_at: datetime
    fire_at: datetime

    @property
    def delay_seconds(self) -> float:
        return (self.fire_at - self.created_at).total_seconds()


@dataclass
class TimedWorkerQueue:
    """Workers by key, as AddWork / CancelWork keep them."""

    workers: dict[str, TimedWorker] = field(default_factory=dict)

    def add_work(self, key: str, created_at: datetime, fire_at: datetime) -> None:
        if key not in self.workers:         # "Trying to add already existing work, skipping"
            self.workers[key] = TimedWorker(key, created_at, fire_at)

    def cancel_work(self, key: str) -> bool:
        """Whether a worker was there to cancel."""
        return self.workers.pop(key, None) is not None

    def get_worker(self, key: str) -> TimedWorker | None:
        return self.workers.get(key)

    def fire_all(self) -> list[TimedWorker]:
        """Every worker, in the order it fires; the queue is empty after."""
        order = sorted(enumerate(self.workers.values()), key=lambda iw: (iw[1].fire_at, iw[0]))
        self.workers.clear()
        return [worker for _, worker in order]
