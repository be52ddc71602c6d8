"""Karpenter's API objects: NodePool, NodeClaim (karpenter.sh/v1), EC2NodeClass (karpenter.k8s.aws/v1), their labels."""
