"""`kubectl drain` (k8s.io/kubectl/pkg/drain): `filters` decides, pod by pod, what
GetPodsForDeletion deletes, skips or refuses, in kubectl's filter order and words; `drain` lists
the node's pods as the API server does, aggregates kubectl's warnings and errors, and runs the
eviction loop against the Eviction subresource (`kexplain.eviction.api`)."""
