"""Host ports on one node as Karpenter tracks them (pkg/scheduling/hostportusage.go): each
<hostIP, hostPort, protocol> may be held by one pod of a node."""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Iterable

from kexplain.karpenter.errors import StructuredError

ERR_HOST_PORT_CONFLICT = "pod hostport conflicts with existing hostport configuration"

IP = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_ip(text: str) -> IP | None:
    """net.ParseIP: None for what Go cannot parse; an IPv4-mapped IPv6 address is its IPv4 one
    (Go keeps both in one 16-byte form and prints the IPv4 text)."""
    if "%" in text:
        return None
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def ip_string(ip: IP | None) -> str:
    """net.IP's String(): `<nil>` for an address Go could not parse."""
    return "<nil>" if ip is None else ip.compressed


@dataclass(frozen=True)
class HostPort:
    ip: IP | None
    port: int
    protocol: str

    def __str__(self) -> str:
        return f"IP={ip_string(self.ip)} Port={self.port} Proto={self.protocol}"

    def matches(self, rhs: "HostPort") -> bool:
        """Same protocol and port, and equal IPs unless either is unspecified (0.0.0.0 or ::)."""
        if self.protocol != rhs.protocol or self.port != rhs.port:
            return False
        return self.ip == rhs.ip or _unspecified(self.ip) or _unspecified(rhs.ip)


def _unspecified(ip: IP | None) -> bool:
    return ip is not None and ip.is_unspecified


def get_host_ports(pod) -> list[HostPort]:
    """GetHostPorts: every container port with a hostPort; an empty hostIP is 0.0.0.0."""
    usage = []
    for c in pod.spec.get("containers") or ():
        for p in c.get("ports") or ():
            host_port = p.get("hostPort") or 0
            if host_port == 0:
                continue
            usage.append(HostPort(parse_ip(p.get("hostIP") or "0.0.0.0"), int(host_port), p.get("protocol") or ""))
    return usage


def pod_key(pod) -> tuple[str, str]:
    """client.ObjectKeyFromObject: the pod's namespace and name."""
    return (pod.namespace, pod.name)


class HostPortUsage:
    """The host ports the pods of one node (or NodeClaim) hold, by pod."""

    __slots__ = ("reserved",)

    def __init__(self, reserved: dict[tuple[str, str], list[HostPort]] | None = None) -> None:
        self.reserved: dict[tuple[str, str], list[HostPort]] = reserved if reserved is not None else {}

    def add(self, used_by, ports: Iterable[HostPort]) -> None:
        """The pod's ports replace what it held before."""
        self.reserved[pod_key(used_by)] = list(ports)

    def conflicts(self, used_by, ports: Iterable[HostPort]) -> StructuredError | None:
        """The first of the pod's ports another pod holds, as Karpenter says it; None when free.
        Go walks the holders in map order; here in the order they were added."""
        me = pod_key(used_by)
        for new in ports:
            for key, entries in self.reserved.items():
                if key == me:
                    continue
                for existing in entries:
                    if new.matches(existing):
                        return StructuredError(ERR_HOST_PORT_CONFLICT, {
                            "pod-hostport-ip": ip_string(new.ip), "pod-hostport-port": new.port,
                            "pod-hostport-protocol": new.protocol,
                            "existing-hostport-ip": ip_string(existing.ip), "existing-hostport-port": existing.port,
                            "existing-hostport-protocol": existing.protocol})
        return None

    def deep_copy(self) -> "HostPortUsage":
        return HostPortUsage({k: list(v) for k, v in self.reserved.items()})
