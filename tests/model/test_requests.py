"""A pod's effective requests as the scheduler computes them (PodRequests / CalculateResource)."""
from fractions import Fraction

import pytest

from kexplain.model.resources import pod_requests, pod_resource

MI = 2**20


def c(name="c", cpu=None, mem=None, restart=None, **extra):
    req = {}
    if cpu is not None:
        req["cpu"] = cpu
    if mem is not None:
        req["memory"] = mem
    req.update(extra)
    out = {"name": name, "image": "x", "resources": {"requests": req}}
    if restart:
        out["restartPolicy"] = restart
    return out


def pod(containers=(), init=(), overhead=None, pod_level=None, status=None):
    spec = {"containers": list(containers), "initContainers": list(init)}
    if overhead:
        spec["overhead"] = overhead
    if pod_level:
        spec["resources"] = {"requests": pod_level}
    obj = {"metadata": {"name": "p"}, "spec": spec}
    if status:
        obj["status"] = status
    return obj


@pytest.mark.parametrize("p, want_cpu_milli, want_mem", [
    # containers add up
    (pod([c(cpu="100m", mem="64Mi"), c("d", cpu="200m", mem="64Mi")]), 300, 128 * MI),
    # an init container larger than the sum wins (max of init and regular)
    (pod([c(cpu="100m")], [c("i", cpu="1")]), 1000, 0),
    # a restartable sidecar adds to the regular containers and to later init containers
    (pod([c(cpu="100m")], [c("s", cpu="200m", restart="Always"), c("i", cpu="250m")]), 450, 0),
    # sidecar before a big init container: max(regular+sidecar, init+sidecar)
    (pod([c(cpu="100m")], [c("s", cpu="200m", restart="Always"), c("i", cpu="1")]), 1200, 0),
    # overhead is added
    (pod([c(cpu="100m", mem="10Mi")], overhead={"cpu": "250m", "memory": "20Mi"}), 350, 30 * MI),
    # pod-level requests replace the container sums for cpu and memory
    (pod([c(cpu="100m", mem="10Mi"), c("d", cpu="100m")], pod_level={"cpu": "1", "memory": "1Gi"}), 1000, 1024 * MI),
    # in-place resize: the larger of spec and actuated/allocated status
    (pod([c(cpu="100m")], status={"containerStatuses": [
        {"name": "c", "resources": {"requests": {"cpu": "300m"}}, "allocatedResources": {"cpu": "200m"}}]}), 300, 0),
])
def test_effective_requests(p, want_cpu_milli, want_mem):
    res = pod_resource(p).resource
    assert res.milli_cpu == want_cpu_milli
    assert res.memory == want_mem


def test_extended_resources_and_hugepages_are_scalar():
    res = pod_resource(pod([c(cpu="1", **{"nvidia.com/gpu": "2", "hugepages-2Mi": "4Mi"})])).resource
    assert res.scalar == {"nvidia.com/gpu": 2, "hugepages-2Mi": 4 * MI}


@pytest.mark.parametrize("p, non0_cpu, non0_mem", [
    (pod([c()]), 100, 200 * MI),                             # nothing requested: the defaults
    (pod([c(cpu="50m")]), 50, 200 * MI),                     # only memory missing
    (pod([c(cpu="50m"), c("d")]), 150, 400 * MI),            # per container
    (pod([c()], pod_level={"cpu": "2"}), 2000, 200 * MI),    # pod-level cpu set, memory defaulted
])
def test_non_zero_requests_for_scoring(p, non0_cpu, non0_mem):
    r = pod_resource(p)
    assert (r.non0_cpu, r.non0_mem) == (non0_cpu, non0_mem)


def test_requests_are_exact_fractions():
    assert pod_requests(pod([c(cpu="0.1"), c("d", cpu="0.2")]))["cpu"] == Fraction(3, 10)


def test_init_containers_and_containers_are_not_one_shape():
    # The same containers, once split into an init container and a container, once both
    # regular: max(1, 1) and 1 + 1. The second pod must not be given the first one's result.
    split = pod([c("b", cpu="1")], [c("a", cpu="1")])
    both = pod([c("a", cpu="1"), c("b", cpu="1")])
    assert pod_resource(split).resource.milli_cpu == 1000
    assert pod_resource(both).resource.milli_cpu == 2000
