"""Kueue's core controllers (pkg/controller/core): here, the workload controller's checks."""
