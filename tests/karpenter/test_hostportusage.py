"""Host ports on a node as Karpenter tracks them (pkg/scheduling/hostportusage.go): which ports a
pod holds, when two conflict, and the error text."""
from __future__ import annotations

import pytest

from kexplain.karpenter.scheduling.hostportusage import HostPortUsage, get_host_ports
from kexplain.model.pod import PodInfo


def pod(name: str, *ports: dict, init: list | None = None) -> PodInfo:
    spec = {"containers": [{"name": "c", "ports": list(ports)}]}
    if init:
        spec["initContainers"] = init
    return PodInfo({"metadata": {"name": name, "namespace": "default"}, "spec": spec})


def port(host_port: int, ip: str | None = None, protocol: str | None = "TCP") -> dict:
    p = {"containerPort": 80, "hostPort": host_port}
    if ip is not None:
        p["hostIP"] = ip
    if protocol is not None:
        p["protocol"] = protocol
    return p


def test_only_container_ports_with_a_host_port_count():
    sidecar = [{"name": "s", "restartPolicy": "Always", "ports": [port(9000)]}]
    p = pod("a", port(80), {"containerPort": 81}, port(443, "10.0.0.1", None), init=sidecar)
    assert [str(h) for h in get_host_ports(p)] == ["IP=0.0.0.0 Port=80 Proto=TCP", "IP=10.0.0.1 Port=443 Proto="]


@pytest.mark.parametrize("held, wanted, conflict", [
    (port(80), port(80), True),                                   # same everything
    (port(80), port(81), False),                                  # other port
    (port(80), port(80, protocol="UDP"), False),                  # other protocol
    (port(80, "10.0.0.1"), port(80, "10.0.0.2"), False),          # other IPs
    (port(80, "10.0.0.1"), port(80), True),                       # 0.0.0.0 overlaps every IP
    (port(80), port(80, "10.0.0.1"), True),
    (port(80, "::"), port(80, "10.0.0.1"), True),                 # :: is unspecified too
    (port(80, "::ffff:10.0.0.1"), port(80, "10.0.0.1"), True),    # an IPv4-mapped address is the IPv4 one
    (port(80, protocol=None), port(80), False),                   # an unset protocol is not TCP here
])
def test_conflicts(held, wanted, conflict):
    usage = HostPortUsage()
    usage.add(pod("holder", held), get_host_ports(pod("holder", held)))
    p = pod("new", wanted)
    assert (usage.conflicts(p, get_host_ports(p)) is not None) == conflict


def test_the_conflict_text_names_both_ports():
    usage = HostPortUsage()
    holder = pod("holder", port(8080, "10.0.0.1"))
    usage.add(holder, get_host_ports(holder))
    p = pod("new", port(8080))
    assert str(usage.conflicts(p, get_host_ports(p))) == (
        "pod hostport conflicts with existing hostport configuration (existing-hostport-ip=10.0.0.1, "
        "existing-hostport-port=8080, existing-hostport-protocol=TCP, pod-hostport-ip=0.0.0.0, "
        "pod-hostport-port=8080, pod-hostport-protocol=TCP)")


def test_a_pod_does_not_conflict_with_itself_and_a_copy_keeps_its_ports():
    usage = HostPortUsage()
    p = pod("a", port(80))
    usage.add(p, get_host_ports(p))
    assert usage.conflicts(p, get_host_ports(p)) is None
    other = pod("b", port(80))
    copy = usage.deep_copy()
    usage.reserved.clear()
    assert usage.conflicts(other, get_host_ports(other)) is None
    assert copy.conflicts(other, get_host_ports(other)) is not None


def test_an_ip_go_cannot_parse_prints_nil():
    p = pod("a", port(80, "not-an-ip"))
    assert [str(h) for h in get_host_ports(p)] == ["IP=<nil> Port=80 Proto=TCP"]
