"""Explaining pods: the request and its options, the inputs, one run, several pods (batch) and
replicas and DaemonSets (placement). Never prints."""
