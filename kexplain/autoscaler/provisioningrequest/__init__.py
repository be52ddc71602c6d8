"""The Cluster Autoscaler's ProvisioningRequests (cluster-autoscaler/provisioningrequest): the pods
CA makes of one (`pods`), the classes it supports and the conditions it writes (`conditions`),
and its answer for one in a loop (`provision`: check-capacity, best-effort atomic scale-up)."""
