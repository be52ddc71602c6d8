"""remove-host-port, change-host-port: free the pod of the host ports other pods hold on nodes
NodePorts alone rejects (moved up to 100 above); a host-network pod is left alone."""
from __future__ import annotations

from collections import Counter
from typing import Any

from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import HostPort, PodInfo
from kexplain.plugins.names import NODE_PORTS
from kexplain.suggest.change import Candidate, Fix, pod_op, pointer
from kexplain.suggest.context import Context

ID = "ports"
REMOVE_HOST_PORT = "remove-host-port"
CHANGE_HOST_PORT = "change-host-port"
KINDS = (REMOVE_HOST_PORT, CHANGE_HOST_PORT)
PLUGIN = NODE_PORTS

PORT_SEARCH = 100          # how far above a taken host port a free one is looked for


def _host_ports(pod: PodInfo) -> list[tuple[tuple[Any, ...], str, HostPort]]:
    """(path of the port, container name, host port) for every port with a hostPort."""
    out = []
    spec = pod.spec
    sections = [("initContainers", i, c) for i, c in enumerate(spec.get("initContainers") or ())
                if c.get("restartPolicy") == "Always"]
    sections += [("containers", i, c) for i, c in enumerate(spec.get("containers") or ())]
    for section, i, c in sections:
        for j, p in enumerate(c.get("ports") or ()):
            hp = p.get("hostPort") or 0
            if hp > 0:
                out.append((("spec", section, i, "ports", j), str(c.get("name", i)),
                            HostPort(p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", int(hp))))
    return out


def candidates(ctx: Context) -> list[Candidate]:
    """Remove the conflicting host ports; or move each to a free one."""
    nodes = ctx.only(NODE_PORTS)
    if not nodes or ctx.pod.spec.get("hostNetwork"):
        return []
    ports = _host_ports(ctx.pod)
    conflicts: dict[str, frozenset[int]] = {}
    for node in nodes:
        info = ctx.info(node)
        if info is not None:
            conflicts[node] = frozenset(k for k, (_, _, hp) in enumerate(ports) if info.used_ports.conflicts(hp))
    counts = Counter(group for group in conflicts.values() if group)
    if not counts:
        return []
    group = min(counts, key=lambda g: (len(g), -sum(1 for c in conflicts.values() if c <= g), sorted(g)))
    chosen = [ports[k] for k in sorted(group)]
    names = ", ".join(f"hostPort {hp.port}/{hp.protocol} of container {c}" for _, c, hp in chosen)
    removal = tuple(pod_op(ctx.pod, "remove", pointer(*path, "hostPort")) for path, _, _ in chosen)
    out = [Candidate(REMOVE_HOST_PORT, ctx.pod_target, f"remove {names}", removal)]
    own = {hp.port for _, _, hp in ports}
    moves, words = [], []
    for path, c, hp in chosen:
        free = next((q for q in range(hp.port + 1, min(65535, hp.port + PORT_SEARCH) + 1)
                     if q not in own and not any(ni.used_ports.conflicts(HostPort(hp.ip, hp.protocol, q))
                                                 for ni in ctx.snapshot.node_infos)), None)
        if free is None:
            return out
        own.add(free)
        moves.append(pod_op(ctx.pod, "replace", pointer(*path, "hostPort"), free))
        words.append(f"hostPort {hp.port}/{hp.protocol} of container {c} to {free}")
    out.append(Candidate(CHANGE_HOST_PORT, ctx.pod_target, f"change {', '.join(words)}", tuple(moves)))
    return out


def node_fix(ctx: Context, node: str, info: NodeInfo) -> Fix | None:
    """Remove the host ports taken on the node (for `combined`)."""
    if ctx.pod.spec.get("hostNetwork"):
        return None
    taken = [(path, c, hp) for path, c, hp in _host_ports(ctx.pod) if info.used_ports.conflicts(hp)]
    if not taken:
        return None
    return ([pod_op(ctx.pod, "remove", pointer(*path, "hostPort")) for path, _, _ in taken],
            [f"remove hostPort {hp.port}/{hp.protocol} of container {c}" for _, c, hp in taken])
