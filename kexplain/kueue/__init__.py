"""Kueue's admission, as sigs.k8s.io/kueue v0.17.8 runs it (v0.19 as a table of differences,
`versions.py`): the Workload each Job, Pod or JobSet becomes, then Kueue's scheduling cycles
over ResourceFlavors, ClusterQueues, Cohorts and LocalQueues, and the workload controller's
inadmissible checks."""
