"""Karpenter's provisioning, as `sigs.k8s.io/karpenter` v1.13.0 runs it with the AWS provider
(openshift/aws-karpenter-provider-aws abcf7d1e3417): where its scheduler puts pending pods, and why not."""
