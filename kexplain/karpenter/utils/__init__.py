"""Karpenter's pkg/utils: resource lists."""
