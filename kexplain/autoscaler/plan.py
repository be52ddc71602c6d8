"""The loop document's scale-up plan, read by the loop's callers and the renderers: a reader of
the document alone, importing nothing of the loop (a renderer that reads it loads no autoscaler)."""
from __future__ import annotations

from typing import Any, Mapping


def scale_up_plan(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The loop's scale-up plan: `expansion.chosenScaleUps` where --enforce-node-group-min-size's
    status replaced it, else `expansion.scaleUps`."""
    expansion = doc.get("expansion") or {}
    return list(expansion.get("chosenScaleUps", expansion.get("scaleUps")) or ())
