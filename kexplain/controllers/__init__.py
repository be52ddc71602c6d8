"""The controllers kexplain emulates, as kube-controller-manager's `pkg/controller/` runs them on
what a user applies: the pods a workload's controller makes (`workloads`, with the Deployment's and
StatefulSet's template hashes in `controller_utils`), the claims of generic
ephemeral volumes (`ephemeral`) and of ResourceClaim templates (`resourceclaim`), the
PersistentVolume binder's first pass (`persistentvolume`), the HorizontalPodAutoscaler's first pass
(`podautoscaler`) and a PodDisruptionBudget's status (`disruption`). Loading only reads; these
change what was read, as the controllers would before the scheduler sees it."""
