"""The cyclic garbage collector around bulk loading.

Reading a cluster dump makes millions of small dicts and lists and no reference cycles.
Left on, the collector scans that growing heap again and again while it is built (about a
third of the load time), and then rescans it during the explanation. `bulk_load` pauses it
while loading; with `freeze` (the CLI, a short-lived process) it then moves everything loaded
to the permanent generation, so later collections only look at what the explanation makes.
Library callers (tests, a long-lived process) leave `freeze` off: frozen objects are never
collected.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def bulk_load(*, freeze: bool = False) -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()
