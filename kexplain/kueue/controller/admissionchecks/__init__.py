"""Kueue's admission check controllers (pkg/controller/admissionchecks): `provisioning`, the
ProvisioningRequest controller used with the Cluster Autoscaler."""
