"""What an expander records besides its choice: events on the object it read (CA's recorder)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExpanderEvent:
    """One event CA records: `object` as `KIND NS/NAME`, `type` Normal/Warning, `reason`, `message`."""

    object: str
    type: str
    reason: str
    message: str
