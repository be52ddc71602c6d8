"""Kueue's scheduler (pkg/scheduler): the cycle (`scheduler.py`), flavor assignment
(`flavorassigner`) and preemption (`preemption`)."""
