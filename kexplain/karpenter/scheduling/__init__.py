"""Karpenter's pkg/scheduling: requirements as an algebra, taints, host ports and volumes."""
