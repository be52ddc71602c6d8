"""Kueue's admission, as sigs.k8s.io/kueue v0.17.8 runs it (v0.19 as a table of differences,
`versions.py`): the Workloads jobs become, the scheduling cycles, the inadmissible checks."""
