"""Karpenter's scheduler (pkg/controllers/provisioning/scheduling): Solve, NodeClaims, topology."""
