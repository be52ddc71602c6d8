"""Eviction, the other half of "Scheduling and Eviction": why a placed pod is removed.

A room mirroring the upstream packages, each reading the one cluster state (`kexplain.state`)
and returning values (words stay values until a renderer):

- `kubelet/`: the kubelet's eviction manager (`pkg/kubelet/eviction`): thresholds parsed from a
  KubeletConfiguration, signals observed from the node's stats Summary, the rank functions as
  composed comparators, the eviction message, and the admit handler.
- `drain/`: `kubectl drain` (`k8s.io/kubectl/pkg/drain`): its pod filters in kubectl's order and
  the eviction loop.
- `api.py`: the Eviction subresource (`pkg/registry/core/pod/storage/eviction.go`): the PDB
  lookup and `checkAndDecrement`; the budgets' status is `controllers.disruption`'s.
- `tainteviction/`: the taint eviction controller (`pkg/controller/tainteviction`); the
  tolerations DefaultTolerationSeconds adds are `admission.defaulttolerationseconds`'.
- `versions.py`: what differs between the Kubernetes minors, as data.
"""
