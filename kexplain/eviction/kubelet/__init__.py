"""The kubelet's eviction manager (`pkg/kubelet/eviction`), a module per part of the upstream
package: `config` (the KubeletConfiguration's eviction settings, defaulted), `thresholds`
(ParseThresholdConfig, UpdateContainerFsThresholds, thresholds met, grace periods, node
conditions), `signals` (observations from the stats Summary), `rank` (the comparators and rank
functions), `message` (the eviction message, its annotations, and its parse), `local_storage`
(emptyDir and ephemeral-storage limits), `manager` (one `synchronize` pass), `admit` (the admit
handler), `whatif` (changes to a pod, each checked by ranking again)."""
