"""Karpenter's provisioning controller (pkg/controllers/provisioning): the provisioner."""
