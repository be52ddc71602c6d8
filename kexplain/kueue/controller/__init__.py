"""Kueue's controllers that run in the pass: the job integrations (`jobframework`, `jobs`) and
the workload controller's checks (`core`)."""
