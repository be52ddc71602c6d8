"""The overview's device section (table view): for a pod with ResourceClaims, why
DynamicResources rejects the nodes, nodes with the same story grouped, and the device
classes' totals per node; the devices kexplain would allocate on the chosen node.

Built for a 1,000-node GPU cluster read on a 100-column terminal: nodes are grouped by what
their devices say (device names left out), node and group lists are capped, and `--node NAME`
names every device. Reads `details.nodes.<node>.plugins.DynamicResources` only.
"""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from kexplain.render.blocks import Block
from kexplain.render.devices import claim_lines, dra_facts, group_nodes, node_failed, signature
from kexplain.render.style import Look
from kexplain.render.views import REJECTED

PLUGIN = "DynamicResources"
NODES_NAMED = 8         # node names per group
GROUPS_SHOWN = 6        # groups of nodes per section


def nodes_named(nodes: list[str], limit: int | None = NODES_NAMED) -> str:
    """`3 nodes: a, b, c` or `40 nodes: a, ..., h and 32 more` (no limit: every node)."""
    head = f"{len(nodes)} node{'' if len(nodes) == 1 else 's'}: "
    if limit is None or len(nodes) <= limit:
        return head + ", ".join(nodes)
    return head + ", ".join(nodes[:limit]) + f" and {len(nodes) - limit} more"


def rejected_by_dra(trace: Mapping[str, Any]) -> list[str]:
    """The nodes DynamicResources rejected (every plugin's verdicts when the trace has them)."""
    out = []
    every = trace.get("filterAll") or {}
    for node, st in (trace.get("filter") or {}).items():
        mine = (every.get(node) or {}).get(PLUGIN)
        if mine is None and st.get("plugin") == PLUGIN:
            mine = st
        if mine is not None and mine.get("code") in REJECTED:
            out.append(node)
    return out


def why_groups(trace: Mapping[str, Any]) -> list[tuple[tuple[str, ...], list[str]]]:
    """(signature lines, nodes) for the nodes DynamicResources rejected and has facts for."""
    facts = dra_facts(trace)
    nodes = [n for n in rejected_by_dra(trace) if n in facts and node_failed(facts[n])]
    return group_nodes((n, signature(facts[n])) for n in nodes)


def class_groups(trace: Mapping[str, Any]) -> list[tuple[tuple[str, int, int, int], list[str]]]:
    """((class, total, in use, free), nodes) over every node with facts."""
    items = []
    for node, f in dra_facts(trace).items():
        for c in f.get("deviceClasses") or ():
            items.append((node, (str(c.get("deviceClass")), int(c.get("total", 0)), int(c.get("inUse", 0)),
                                 int(c.get("free", 0)))))
    groups = group_nodes(items)
    return sorted(groups, key=lambda g: (g[0][0], -len(g[1])))


def device_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    """The section, or nothing for a pod without claims (or a trace without device facts)."""
    facts = dra_facts(trace)
    if not facts:
        return []
    blocks: list[Block] = []
    groups = why_groups(trace)
    if groups:
        shown = groups if look.wide else groups[:GROUPS_SHOWN]
        lines: list[RenderableType] = [Text("Devices: why DynamicResources cannot allocate the claims "
                                            "(nodes with the same story grouped)", style="bold")]
        for sig, nodes in shown:
            lines.append(Text(nodes_named(nodes, None if look.wide else NODES_NAMED)))
            lines += [Padding(Text(line.lstrip()), (0, 0, 0, 2 + 2 * _depth(line))) for line in sig]
        if len(shown) < len(groups):
            rest = sum(len(n) for _, n in groups[len(shown):])
            lines.append(Text(f"... and {len(groups) - len(shown)} more group(s) of {rest} node(s) "
                              "(-o wide lists them all)", style="dim"))
        lines.append(Text("--node NAME names every device of one node", style="dim"))
        blocks.append(Block(Group(*lines)))
    blocks += _allocation(trace, facts)
    blocks += _classes(trace, look)
    return blocks


def _depth(line: str) -> int:
    return (len(line) - len(line.lstrip(" "))) // 2


def allocation(trace: Mapping[str, Any]) -> tuple[str, list[str]] | None:
    """(the chosen node, what kexplain would allocate or finds allocated there, a line per claim)."""
    facts = dra_facts(trace)
    host = (trace.get("result") or {}).get("suggestedHost")
    if not host or host not in facts:
        return None
    lines = [line.strip() for c in facts[host].get("claims") or () for line in claim_lines(c, True, named=True)
             if "would allocate" in line or "already allocated" in line]
    return (host, lines) if lines else None


def _allocation(trace: Mapping[str, Any], facts: Mapping[str, Any]) -> list[Block]:
    found = allocation(trace)
    if found is None:
        return []
    host, lines = found
    return [Block(Group(Text(f"Devices on {host}", style="bold"),
                        *(Padding(Text(line), (0, 0, 0, 2)) for line in lines)))]


def _classes(trace: Mapping[str, Any], look: Look) -> list[Block]:
    groups = class_groups(trace)
    if not groups:
        return []
    table = look.table("Device classes the pod asks for, per node")
    table.add_column("class", overflow="fold")
    table.add_column("devices", justify="right", no_wrap=True)
    table.add_column("in use", justify="right", no_wrap=True)
    table.add_column("free", justify="right", no_wrap=True)
    table.add_column("nodes", overflow="fold")
    limit = None if look.wide else NODES_NAMED
    for (cls, total, in_use, free), nodes in groups:
        table.add_row(cls, str(total), str(in_use), str(free), nodes_named(nodes, limit))
    return [Block(table)]
