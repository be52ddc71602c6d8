"""Karpenter's disruption controller (sigs.k8s.io/karpenter pkg/controllers/disruption), one pass:
the methods in Karpenter's order over the cluster state, their candidates, budgets, commands and
events. Modules mirror the upstream files: `controller` (Reconcile and disrupt), `helpers`
(SimulateScheduling, GetCandidates, BuildDisruptionBudgetMapping), `candidate` (types.go), one
module per method, `budgets` (the NodePool budget code of apis/v1/nodepool.go), `pods`
(utils/pod, utils/pdb, utils/disruption), `events` (the events and the recorder's dedupe),
`document` (the result as a document renderers read)."""
