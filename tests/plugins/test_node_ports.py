"""NodePorts: PreFilter skips pods without host ports; Filter finds conflicts per IP/protocol."""
from __future__ import annotations

import pytest

from kexplain.features import KubeVersion
from kexplain.framework.cycle_state import CycleState
from kexplain.plugins.node_ports import NodePorts
from tests.support.selection_helpers import handle, node_info, pod, status_tuple

OK = ("Success", ())
SKIP = ("Skip", ())
CONFLICT = ("Unschedulable", ("node(s) didn't have free ports for the requested pod ports",))


def port(host_port, ip="", protocol="", container_port=8080):
    p = {"containerPort": container_port}
    if host_port:
        p["hostPort"] = host_port
    if ip:
        p["hostIP"] = ip
    if protocol:
        p["protocol"] = protocol
    return p


def with_ports(name, *ports, node_name="", init=None):
    spec = {"containers": [{"name": "c", "image": "x", "ports": list(ports)}]}
    if init is not None:
        spec["initContainers"] = init
    if node_name:
        spec["nodeName"] = node_name
    return pod(name, spec=spec)


@pytest.mark.parametrize("p,want", [
    (with_ports("a"), SKIP),
    (with_ports("a", port(0)), SKIP),                          # container port only
    (with_ports("a", port(80)), OK),
    # Plain init containers do not count; restartable (sidecar) ones do.
    (pod("a", spec={"initContainers": [{"name": "i", "image": "x", "ports": [port(80)]}]}), SKIP),
    (pod("a", spec={"initContainers": [{"name": "i", "image": "x", "restartPolicy": "Always",
                                        "ports": [port(80)]}]}), OK),
])
def test_pre_filter(p, want):
    pl = NodePorts({}, handle([]))
    result, status = pl.pre_filter(CycleState(), p, [])
    assert result is None
    assert status_tuple(status) == want


@pytest.mark.parametrize("existing,wanted,want", [
    ([port(80)], [port(80)], CONFLICT),
    ([port(80)], [port(81)], OK),
    ([port(80)], [port(80, protocol="UDP")], OK),              # protocols are separate
    ([port(80, protocol="UDP")], [port(80, protocol="UDP")], CONFLICT),
    ([port(80, ip="10.0.0.1")], [port(80, ip="10.0.0.2")], OK),  # different IPs
    ([port(80, ip="10.0.0.1")], [port(80, ip="10.0.0.1")], CONFLICT),
    ([port(80, ip="10.0.0.1")], [port(80)], CONFLICT),          # wanted 0.0.0.0 overlaps every IP
    ([port(80)], [port(80, ip="10.0.0.1")], CONFLICT),          # used 0.0.0.0 overlaps every IP
    ([port(80, ip="0.0.0.0")], [port(80, ip="")], CONFLICT),
    ([port(80)], [port(81), port(80)], CONFLICT),               # any one wanted port conflicting
])
def test_filter(existing, wanted, want):
    ni = node_info("n")
    ni.add_pod(with_ports("old", *existing, node_name="n"))
    pl = NodePorts({}, handle([ni]))
    state = CycleState()
    p = with_ports("new", *wanted)
    _, status = pl.pre_filter(state, p, [ni])
    assert status.is_success
    assert status_tuple(pl.filter(state, p, ni)) == want


def test_filter_without_pre_filter_state_is_an_error():
    ni = node_info("n")
    status = NodePorts({}, handle([ni])).filter(CycleState(), with_ports("a", port(80)), ni)
    assert status_tuple(status) == ("Error", ('reading "PreFilterNodePorts" from cycleState: not found',))


def test_removing_a_pod_frees_its_port():
    ni = node_info("n")
    old = with_ports("old", port(80), node_name="n")
    ni.add_pod(old)
    clone = ni.clone()
    clone.remove_pod(old)
    pl = NodePorts({}, handle([ni]))
    state = CycleState()
    p = with_ports("new", port(80))
    pl.pre_filter(state, p, [ni])
    assert status_tuple(pl.filter(state, p, ni)) == CONFLICT
    assert status_tuple(pl.filter(state, p, clone)) == OK


# --- before 1.34 only spec.containers' host ports count, for the pending pod and bound pods ----

def _sidecar(*ports):
    return [{"name": "s", "image": "x", "restartPolicy": "Always", "ports": list(ports)}]


def _run(minor, bound, pending):
    ni = node_info("n")
    for b in bound:
        ni.add_pod(b)
    h = handle([ni])
    h.kube = KubeVersion(minor)
    pl = NodePorts({}, h)
    state = CycleState()
    _, pre = pl.pre_filter(state, pending, [ni])
    if not pre.is_success:
        return status_tuple(pre), None
    return status_tuple(pre), status_tuple(pl.filter(state, pending, ni))


@pytest.mark.parametrize("minor,want", [("1.33", (SKIP, None)), ("1.34", (OK, CONFLICT)), ("1.35", (OK, CONFLICT))])
def test_pending_pods_sidecar_host_ports(minor, want):
    bound = [with_ports("old", port(80), node_name="n")]
    pending = pod("new", spec={"initContainers": _sidecar(port(80)), "containers": [{"name": "c", "image": "x"}]})
    assert _run(minor, bound, pending) == want


@pytest.mark.parametrize("minor,want", [("1.33", (OK, OK)), ("1.34", (OK, CONFLICT)), ("1.36", (OK, CONFLICT))])
def test_bound_pods_sidecar_host_ports(minor, want):
    bound = [with_ports("old", port(81), node_name="n", init=_sidecar(port(80)))]
    assert _run(minor, bound, with_ports("new", port(80))) == want


def test_bound_pods_container_ports_still_count_before_1_34():
    bound = [with_ports("old", port(81), node_name="n", init=_sidecar(port(80)))]
    assert _run("1.33", bound, with_ports("new", port(81, ip="10.0.0.1"))) == (OK, CONFLICT)
    assert _run("1.33", bound, with_ports("new", port(80), port(82))) == (OK, OK)
