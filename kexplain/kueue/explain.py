"""The document of a pass with the explanation (placeholder until the explanation lands)."""
from __future__ import annotations

from typing import Any

from kexplain.kueue.document import document
from kexplain.kueue.inputs import KueueInputs
from kexplain.kueue.run import Settings, run_pass


def explained(inputs: KueueInputs, settings: Settings, *, suggestions: bool = True) -> dict[str, Any]:
    return document(run_pass(inputs, settings))
