"""The controllers kexplain emulates (kube-controller-manager's `pkg/controller/`): the pods a workload's
controller makes, ephemeral and ResourceClaim template claims, the PersistentVolume binder's, the HPA's
first pass and a PodDisruptionBudget's status. Loading only reads; these change what was read, as the
controllers would before the scheduler sees it.
"""
