"""Karpenter's provisioning, as `sigs.k8s.io/karpenter` v1.13.0 runs it with the AWS provider
(openshift/aws-karpenter-provider-aws abcf7d1e3417): which pending pods it provisions for, where
its own scheduler puts them (existing nodes, in-flight NodeClaims, new NodeClaims from NodePools)
and why not."""
