"""Volcano's actions (pkg/scheduler/actions), one module each, looked up by name (`ACTIONS`)."""
from __future__ import annotations

ACTIONS = ("enqueue", "allocate", "backfill", "preempt", "reclaim")
