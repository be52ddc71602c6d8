"""How much input one load may read, so that no input can exhaust the process: one set of
guards for every reader (`kexplain.load.yaml_io`, `kexplain.load.manifests`, lint's documents).

Two caps are the user's, passed explicitly to each load as `max_bytes` and `max_objects` (from
--max-input-size and --max-objects: a large cluster dump legitimately needs more); these are
their defaults. Two protect the parser itself and are fixed: no real manifest comes near them.

DEFAULT_MAX_BYTES fits the largest clusters people dump: Kubernetes' supported maximum (5,000
nodes, 150,000 pods) as `kubectl get nodes,pods -A -o json` writes it is about 1.3 GB with plain
pods and about 2 GB with a service mesh's sidecars (`benchmarks/kubectl_shapes.py`: `kubectl`,
and `heavy` indented); 4 GiB leaves twice that. Such a file is a JSON List, read in windows of
its mapping (`kexplain.load.json_list.read_file`) in bounded memory (the 1.3 GB dump: about
1.2 GB at peak for the whole run, `json.load` alone 3.5 GB); what is read whole (YAML, stdin, a JSON document that is
no List) needs several times its size, so a file of gigabytes of those still wants its own
--max-input-size. Larger inputs are refused with the size and the flag that raises it.
"""
from __future__ import annotations

DEFAULT_MAX_BYTES = 4 << 30          # per file or stdin, 4 GiB (see below)
DEFAULT_MAX_OBJECTS = 500_000        # per load: a 5,000-node cluster with 150,000 pods is about 160,000
MAX_EXPANDED_NODES = 20_000_000      # values of one document once its aliases are expanded
MAX_DEPTH = 5_000                    # nesting levels per document (real manifests: under 30)
