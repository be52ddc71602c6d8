"""How much input one load may read, so that no input can exhaust the process: one set of
guards for every reader (`kexplain.load.yaml_io`, `kexplain.load.manifests`, lint's documents).

Two caps are the user's, passed explicitly to each load as `max_bytes` and `max_objects` (from
--max-input-size and --max-objects: a large cluster dump legitimately needs more); these are
their defaults. Two protect the parser itself and are fixed: no real manifest comes near them.
"""
from __future__ import annotations

DEFAULT_MAX_BYTES = 1 << 30          # per file or stdin, 1 GiB: a 5,000-node snapshot is about 90 MB
DEFAULT_MAX_OBJECTS = 500_000        # per load: a 5,000-node cluster with 150,000 pods is about 160,000
MAX_EXPANDED_NODES = 20_000_000      # values of one document once its aliases are expanded
MAX_DEPTH = 5_000                    # nesting levels per document (real manifests: under 30)
