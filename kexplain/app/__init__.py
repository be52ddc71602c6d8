"""The application: which passes run, in which order, for each command (`cli/` parses and
prints; `explain/`, the autoscalers and Kueue decide). `explain.py` explains files, `live.py` a
live cluster, `autoscalers.py` the one interface of an autoscaler answering the pending pods,
with its two implementations `cluster_autoscaler.py` and `karpenter.py`, imported by name only
when the input calls for them."""
