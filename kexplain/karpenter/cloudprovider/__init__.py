"""Karpenter's pkg/cloudprovider: instance types, offerings, their order and truncation."""
