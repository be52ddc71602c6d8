"""Volcano's actions (pkg/scheduler/actions), one module each, looked up by name (`ACTIONS`)."""
from __future__ import annotations

# the actions Volcano registers (actions/factory.go), and those kexplain runs
REGISTERED = ("reclaim", "allocate", "backfill", "preempt", "gangpreempt", "gangreclaim", "enqueue", "shuffle")
ACTIONS = ("enqueue", "allocate", "backfill", "preempt", "reclaim", "gangpreempt", "gangreclaim", "shuffle")
