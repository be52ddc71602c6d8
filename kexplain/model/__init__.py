"""The cluster as kube-scheduler sees it: quantities, selectors, pods, NodeInfo, the snapshot."""
