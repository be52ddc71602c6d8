"""Kueue's admission, as sigs.k8s.io/kueue v0.17.8 runs it (v0.19 as a table of differences,
`versions.py`): the Workload each Job, Pod or JobSet becomes, then Kueue's scheduling cycles
over ResourceFlavors, ClusterQueues, Cohorts and LocalQueues, and the workload controller's
inadmissible checks.

The packages mirror Kueue's `pkg/`: `apis` (the v1beta2 kinds read, defaulted and validated as
the API server stores them), `workload` (a Workload's facts and conditions),
`controller/jobframework` and `controller/jobs` (one integration per kind), `controller/core`
(the workload controller's checks), `cache` (quota and usage per ClusterQueue and cohort, the
snapshot of a cycle), `queue` (the pending workloads of each ClusterQueue in order) and
`scheduler` with `flavorassigner` and `preemption`. `inputs.py` is the one seam from objects to
Kueue's inputs; `run.py` runs the pass and `document.py` is its result. The engine never prints.
"""
