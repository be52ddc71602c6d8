"""The cluster as Karpenter's state sees it (pkg/controllers/state): nodes, NodeClaims, DaemonSets."""
