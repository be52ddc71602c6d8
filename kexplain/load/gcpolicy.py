"""The cyclic garbage collector around bulk loading.

A dump makes millions of objects and no cycles: `bulk_load` pauses the collector while loading and,
with `freeze` (the CLI only: frozen objects are never collected), freezes what was loaded.
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
