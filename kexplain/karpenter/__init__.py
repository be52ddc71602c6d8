"""Karpenter's provisioning, as `sigs.k8s.io/karpenter` v1.13.0 runs it with the AWS provider
(openshift/aws-karpenter-provider-aws abcf7d1e3417): which pending pods it provisions for, where
its own scheduler puts them (existing nodes, in-flight NodeClaims, new NodeClaims from NodePools)
and why not.

The packages mirror Karpenter's: `apis` (NodePool, NodeClaim, EC2NodeClass, well-known labels),
`scheduling` (the requirements algebra, taints, host ports, volumes: `pkg/scheduling`),
`cloudprovider` (instance types and offerings: `pkg/cloudprovider`), `aws` (the AWS provider's
instance types from EC2's data), `state` (the cluster as Karpenter's state sees it) and
`provisioning` (the provisioner and its scheduler: `pkg/controllers/provisioning`). Karpenter does
not run kube-scheduler's plugins; it reuses kexplain's model, loading and quantities.
"""
