"""How much input one load may read, so that no input can exhaust the process: one set of
guards for every reader (`kexplain.load.yaml_io`, `kexplain.load.manifests`, lint's documents).

`max_bytes` and `max_objects` are the user's (--max-input-size, --max-objects; these are defaults);
the parser's own caps are fixed. Why 4 GiB: docs/internals/load.md.
"""
from __future__ import annotations

DEFAULT_MAX_BYTES = 4 << 30          # per file or stdin, 4 GiB (see below)
DEFAULT_MAX_OBJECTS = 500_000        # per load: a 5,000-node cluster with 150,000 pods is about 160,000
MAX_EXPANDED_NODES = 20_000_000      # values of one document once its aliases are expanded
MAX_DEPTH = 5_000                    # nesting levels per document (real manifests: under 30)
