"""Karpenter's topology simulation (controllers/provisioning/scheduling/topology*.go): spread,
pod affinity and anti-affinity, inverse anti-affinity, the domains NodePools and nodes give,
counts from the cluster's bound pods, and the exact error text.

The outcomes follow Karpenter's own topology tests (topology_test.go: "should balance pods
across zones", "should respect NodePool zonal constraints", minDomains, node inclusion
policies, ...), driven here through the Topology API the way its scheduler drives it: a pod asks
`add_requirements` of a node or a new NodeClaim, lands there, and is `record`ed.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kexplain.karpenter.provisioning.scheduling.topology import (
    PREFERENCE_POLICY_IGNORE, TopologyError, new_topology, pretty_map,
)
from kexplain.karpenter.provisioning.scheduling.topologygroup import TopologyType
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import (
    ALLOW_UNDEFINED_WELL_KNOWN_LABELS, new_label_requirements, new_requirements, new_strict_pod_requirements,
)
from kexplain.model.pod import PodInfo

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
CAPACITY = "karpenter.sh/capacity-type"
ZONES = ("test-zone-1", "test-zone-2", "test-zone-3")
APP = {"app": "web"}


# -- the cluster -------------------------------------------------------------------------------

def pod(name: str, labels: dict | None = APP, node: str = "", namespace: str = "default", **spec: Any) -> PodInfo:
    meta = {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}", "labels": dict(labels or {})}
    body = {"containers": [{"name": "c", "image": "i"}], **spec}
    if node:
        body["nodeName"] = node
    return PodInfo({"metadata": meta, "spec": body, "status": {"phase": "Running" if node else "Pending"}})


def node(name: str, zone: str | None, taints: list | None = None, **labels: str) -> dict:
    lbl = {HOST: name, **labels}
    if zone:
        lbl[ZONE] = zone
    return {"metadata": {"name": name, "labels": lbl}, "spec": {"taints": taints or []}}


class Cluster:
    """What the topology reads of Karpenter's state (the TopologyCluster protocol)."""

    def __init__(self, pods=(), nodes=(), namespaces=None):
        self.pods = list(pods)
        self._nodes = {n["metadata"]["name"]: n for n in nodes}
        self.objects = {"Namespace": [{"metadata": {"name": k, "labels": v}} for k, v in (namespaces or {}).items()]}

    def node_by_name(self, name):
        return self._nodes.get(name)

    def for_pods_with_anti_affinity(self):
        return [(p, self._nodes[p.node_name]) for p in self.pods
                if p.node_name in self._nodes and p.has_required_anti_affinity]


class StateNode:
    def __init__(self, n):
        self.node = n

    def labels(self):
        return self.node["metadata"]["labels"]


def node_pool(name="default", zones=None, labels=None, taints=None, requirements=None) -> dict:
    reqs = list(requirements or [])
    if zones is not None:
        reqs.append({"key": ZONE, "operator": "In", "values": list(zones)})
    return {"metadata": {"name": name}, "spec": {"template": {"metadata": {"labels": labels or {}},
                                                             "spec": {"requirements": reqs, "taints": taints or []}}}}


def instance_type(zones=ZONES, capacity=("on-demand", "spot")):
    return SimpleNamespace(requirements=new_requirements(new_requirement(ZONE, "In", *zones),
                                                        new_requirement(CAPACITY, "In", *capacity)))


def spread(key=ZONE, max_skew=1, **extra) -> dict:
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": dict(APP)}, **extra}


def build(pods, cluster=None, pools=None, its=None, policy="Respect"):
    cluster = cluster or Cluster()
    pools = pools if pools is not None else [node_pool()]
    its = its if its is not None else {p["metadata"]["name"]: [instance_type()] for p in pools}
    state = [StateNode(n) for n in cluster._nodes.values()]
    topology, err = new_topology(cluster, state, pools, its, pods, policy)
    assert err is None, str(err)
    return topology


class Scheduler:
    """Each pod on a new NodeClaim of the NodePool (big pods, as Karpenter's tests use), the
    NodeClaim's requirements those of the template plus a placeholder hostname."""

    def __init__(self, topology, pool=None, taints=()):
        self.topology = topology
        self.pool = pool or node_pool()
        self.taints = list(taints)
        self.placed: dict[str, str] = {}
        self.errors: dict[str, str] = {}
        self.n = 0

    def template(self):
        spec = self.pool["spec"]["template"]
        from kexplain.karpenter.scheduling.requirements import new_node_selector_requirements
        reqs = new_node_selector_requirements(spec["spec"]["requirements"])
        reqs.add(*new_label_requirements(spec["metadata"]["labels"]).values())
        return reqs

    def schedule(self, p: PodInfo) -> str | None:
        self.n += 1
        host = f"hostname-placeholder-{self.n:04d}"
        reqs = self.template()
        reqs.add(new_requirement(HOST, "In", host))
        pod_reqs = new_strict_pod_requirements(p)
        err = reqs.compatible(pod_reqs, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
        if err is None:
            reqs.add(*pod_reqs.values())
            topo, err = self.topology.add_requirements(p, self.taints, pod_reqs, reqs, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
        if err is not None:
            self.errors[p.name] = str(err)
            return None
        reqs.add(*topo.values())
        # the instance type's zones, as the NodeClaim's offerings would narrow them
        reqs.add(new_requirement(ZONE, "In", *ZONES))
        self.topology.register(HOST, host)
        self.topology.record(p, self.taints, reqs, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
        zone = reqs.get(ZONE)
        self.placed[p.name] = zone.values()[0] if zone.len() == 1 else str(zone)
        return self.placed[p.name]

    def run(self, pods):
        for p in pods:
            self.schedule(p)
        return self

    def skew(self) -> list[int]:
        counts: dict[str, int] = {}
        for zone in self.placed.values():
            counts[zone] = counts.get(zone, 0) + 1
        return sorted(counts.values())


def web(n, start=0, **spec):
    return [pod(f"web-{i}", **spec) for i in range(start, start + n)]


# -- spread ------------------------------------------------------------------------------------

@pytest.mark.parametrize("pools, n, skew", [
    ([node_pool()], 4, [1, 1, 2]),                                           # balance across zones
    ([node_pool(zones=ZONES)], 4, [1, 1, 2]),                                # NodePool zonal constraints
    ([node_pool(zones=ZONES[:2])], 4, [2, 2]),                               # a subset by requirements
    ([node_pool(labels={ZONE: "test-zone-1"})], 4, [4]),                     # a subset by labels
    ([node_pool(zones=ZONES[:2], labels={ZONE: "test-zone-1"})], 4, [4]),    # requirements and labels
], ids=["balance", "nodepool-zones", "subset-requirements", "subset-labels", "requirements-and-labels"])
def test_zonal_spread_balances_within_the_nodepools_domains(pools, n, skew):
    pods = web(n, topologySpreadConstraints=[spread()])
    s = Scheduler(build(pods, pools=pools), pools[0]).run(pods)
    assert s.skew() == skew and not s.errors


def test_domains_of_several_nodepools_are_the_universe():
    pools = [node_pool(zones=ZONES[:2], labels={ZONE: "test-zone-1"}),
             node_pool("other", labels={ZONE: "test-zone-2"})]
    pods = web(4, topologySpreadConstraints=[spread()])
    t = build(pods, pools=pools)
    (group,) = t.topology_groups.values()
    assert sorted(group.domains) == ["test-zone-1", "test-zone-2"]


def test_existing_pod_in_a_zone_the_nodepool_cannot_reach_limits_the_others():
    # one matching pod bound in zone 3; the NodePool may only launch in zones 1 and 2: with
    # maxSkew 1, each of them takes two before the skew against zone 3 is violated
    cluster = Cluster([pod("old", node="n3")], [node("n3", "test-zone-3")])
    pool = node_pool(zones=ZONES[:2])
    pods = web(6, topologySpreadConstraints=[spread()])
    s = Scheduler(build(pods, cluster, [pool]), pool).run(pods)
    assert s.skew() == [2, 2] and len(s.errors) == 2
    assert s.errors["web-4"] == (
        "unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = "
        "test-zone-1: 2, test-zone-2: 2, test-zone-3: 1, podDomains = topology.kubernetes.io/zone Exists, "
        "nodeDomains = topology.kubernetes.io/zone In [test-zone-1 test-zone-2]")


def test_max_skew_allows_a_non_minimum_domain():
    cluster = Cluster([pod("a", node="n1"), pod("b", node="n2")],
                      [node("n1", "test-zone-1"), node("n2", "test-zone-2")])
    pool = node_pool(zones=["test-zone-3"])
    pods = web(10, topologySpreadConstraints=[spread(max_skew=5)])
    s = Scheduler(build(pods, cluster, [pool]), pool).run(pods)
    assert s.placed == {f"web-{i}": "test-zone-3" for i in range(6)}
    assert sorted(s.errors) == ["web-6", "web-7", "web-8", "web-9"]


@pytest.mark.parametrize("min_domains, placed", [(None, 6), (2, 6), (3, 2)])
def test_min_domains_counts_the_global_minimum_as_zero_until_enough_domains(min_domains, placed):
    pool = node_pool(zones=ZONES[:2])
    extra = {} if min_domains is None else {"minDomains": min_domains}
    pods = web(6, topologySpreadConstraints=[spread(**extra)])
    s = Scheduler(build(pods, pools=[pool]), pool).run(pods)
    # 6 pods, maxSkew 1, two zones: they balance 3/3 unless minDomains > 2 holds each zone to 1
    assert len(s.placed) == placed and s.skew() == ([3, 3] if placed == 6 else [1, 1])


def test_hostname_spread_gives_each_new_nodeclaim_up_to_max_skew():
    pods = web(3, topologySpreadConstraints=[spread(HOST, max_skew=1)])
    t = build(pods)
    s = Scheduler(t)
    for p in pods:
        host = f"hostname-placeholder-{s.n + 1:04d}"
        assert s.schedule(p) is not None
        group = next(iter(t.topology_groups.values()))
        assert group.domains[host] == 1
    # a NodeClaim that already holds one matching pod takes no second one
    group = next(iter(t.topology_groups.values()))
    reqs = new_requirements(new_requirement(HOST, "In", "hostname-placeholder-0001"))
    late = pod("web-9", topologySpreadConstraints=[spread(HOST)])
    assert t.update(late) is None
    got, err = t.add_requirements(late, [], new_requirements(), reqs)
    assert got is None and str(err).startswith("unsatisfiable topology constraint for topology spread, "
                                               "key=kubernetes.io/hostname (counts = hostname-placeholder-0001: 1,")
    assert group.domains == {"hostname-placeholder-0001": 1, "hostname-placeholder-0002": 1,
                             "hostname-placeholder-0003": 1}


def test_unknown_topology_key_has_no_domain():
    p = pod("web-0", topologySpreadConstraints=[spread("unknown")])
    s = Scheduler(build([p])).run([p])
    assert s.errors == {"web-0": "unsatisfiable topology constraint for topology spread, key=unknown (counts = , "
                                 "podDomains = unknown Exists, nodeDomains = unknown Exists"}


def test_pod_not_selected_by_its_own_spread_is_not_counted():
    pods = [pod(f"other-{i}", labels={"app": "other"}, topologySpreadConstraints=[spread()]) for i in range(3)]
    s = Scheduler(build(pods)).run(pods)
    # none counts, so every pod takes the first least-loaded zone
    assert set(s.placed.values()) == {"test-zone-1"}


@pytest.mark.parametrize("policy, expect_skipped", [("Respect", False), (PREFERENCE_POLICY_IGNORE, True)])
def test_schedule_anyway_spread_is_a_preference(policy, expect_skipped):
    p = pod("web-0", topologySpreadConstraints=[spread(whenUnsatisfiable="ScheduleAnyway")])
    t = build([p], policy=policy)
    assert (not t.topology_groups) == expect_skipped


# -- node inclusion policies ---------------------------------------------------------------------

def test_node_taints_policy_honor_leaves_out_tainted_nodepools_domains():
    taint = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    pools = [node_pool("general", zones=ZONES[:2]), node_pool("gpu", zones=ZONES[2:], taints=[taint])]
    its = {"general": [instance_type()], "gpu": [instance_type()]}
    honor = build([pod("a", topologySpreadConstraints=[spread(nodeTaintsPolicy="Honor")])], pools=pools, its=its)
    ignore = build([pod("b", topologySpreadConstraints=[spread()])], pools=pools, its=its)
    (h,), (i,) = honor.topology_groups.values(), ignore.topology_groups.values()
    assert sorted(h.domains) == ["test-zone-1", "test-zone-2"]
    assert sorted(i.domains) == list(ZONES)
    tolerating = pod("c", topologySpreadConstraints=[spread(nodeTaintsPolicy="Honor")],
                     tolerations=[{"key": "dedicated", "operator": "Exists"}])
    (t,) = build([tolerating], pools=pools, its=its).topology_groups.values()
    assert sorted(t.domains) == list(ZONES)


def test_node_taints_policy_honor_skips_pods_on_untolerated_nodes():
    taint = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}
    cluster = Cluster([pod("old", node="n1")], [node("n1", "test-zone-1", taints=[taint])])
    (honor,) = build([pod("a", topologySpreadConstraints=[spread(nodeTaintsPolicy="Honor")])],
                     cluster).topology_groups.values()
    (ignore,) = build([pod("b", topologySpreadConstraints=[spread()])], cluster).topology_groups.values()
    assert honor.domains["test-zone-1"] == 0 and ignore.domains["test-zone-1"] == 1


@pytest.mark.parametrize("policy, counted", [(None, 0), ("Honor", 0), ("Ignore", 1)])
def test_node_affinity_policy_decides_whether_other_nodes_count(policy, counted):
    cluster = Cluster([pod("old", node="n1")], [node("n1", "test-zone-1", pool="b")])
    extra = {} if policy is None else {"nodeAffinityPolicy": policy}
    p = pod("a", topologySpreadConstraints=[spread(**extra)], nodeSelector={"pool": "a"})
    (group,) = build([p], cluster).topology_groups.values()
    assert group.domains["test-zone-1"] == counted


def test_required_node_affinity_terms_are_ored_in_the_filter():
    cluster = Cluster([pod("x", node="n1"), pod("y", node="n2"), pod("z", node="n3")],
                      [node("n1", "test-zone-1", pool="a"), node("n2", "test-zone-2", pool="b"),
                       node("n3", "test-zone-3", pool="c")])
    terms = [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]},
             {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["b"]}]}]
    p = pod("p", topologySpreadConstraints=[spread()],
            affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}})
    (group,) = build([p], cluster).topology_groups.values()
    assert group.domains == {"test-zone-1": 1, "test-zone-2": 1, "test-zone-3": 0}


# -- counting the cluster's pods -------------------------------------------------------------------

def test_counts_leave_out_pods_not_running_and_the_pods_being_scheduled():
    done = pod("done", node="n1")
    done.status["phase"] = "Succeeded"
    going = pod("going", node="n1")
    going.metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    pending = pod("web-0", topologySpreadConstraints=[spread()])
    bound_twin = PodInfo({**pending.obj, "spec": {**pending.spec, "nodeName": "n1"}})   # same uid, bound
    cluster = Cluster([done, going, bound_twin, pod("ok", node="n1"), pod("lost", node="gone")],
                      [node("n1", "test-zone-1")])
    (group,) = build([pending], cluster).topology_groups.values()
    assert group.domains["test-zone-1"] == 1


def test_topologies_over_one_cluster_each_leave_out_only_their_own_pods():
    """Karpenter's disruption builds a topology per simulation over the same cluster: what the
    groups count from is shared (`counted_of`), and each leaves out the pods it schedules."""
    bound = [pod(f"web-{i}", node=f"n{i % 3}", topologySpreadConstraints=[spread()]) for i in range(6)]
    other = pod("other", labels={"app": "db"}, node="n0")
    cluster = Cluster([*bound, other], [node(f"n{i}", ZONES[i]) for i in range(3)])
    first = build([bound[0]], cluster)
    second = build([bound[1], bound[4]], cluster)
    again = build([bound[0]], cluster)
    (g1,), (g2,), (g3,) = (t.topology_groups.values() for t in (first, second, again))
    assert g1.domains == {"test-zone-1": 1, "test-zone-2": 2, "test-zone-3": 2}
    assert g2.domains == {"test-zone-1": 2, "test-zone-2": 0, "test-zone-3": 2}
    assert g3.domains == g1.domains


def test_a_selector_of_several_values_counts_each_selected_pod_once():
    pods = [pod("a", labels={"app": "web"}, node="n0"), pod("b", labels={"app": "api"}, node="n1"),
            pod("c", labels={"app": "db"}, node="n1"), pod("d", labels={"app": "api", "tier": "x"}, node="n0")]
    cluster = Cluster(pods, [node("n0", ZONES[0]), node("n1", ZONES[1])])
    tsc = {**spread(), "labelSelector": {"matchExpressions": [
        {"key": "app", "operator": "In", "values": ["api", "web"]},
        {"key": "tier", "operator": "DoesNotExist"}]}}
    (group,) = build([pod("new", topologySpreadConstraints=[tsc])], cluster).topology_groups.values()
    assert group.domains == {"test-zone-1": 1, "test-zone-2": 1, "test-zone-3": 0}


def test_a_node_without_the_hostname_label_is_its_own_hostname_domain():
    bare = {"metadata": {"name": "bare", "labels": {ZONE: "test-zone-1"}}, "spec": {}}
    cluster = Cluster([pod("old", node="bare")], [bare])
    (group,) = build([pod("a", topologySpreadConstraints=[spread(HOST)])], cluster).topology_groups.values()
    assert group.domains == {"bare": 1}


def test_state_nodes_make_their_domains_known_with_zero():
    cluster = Cluster([], [node("n9", "zone-elsewhere")])
    (group,) = build([pod("a", topologySpreadConstraints=[spread()])], cluster).topology_groups.values()
    assert group.domains["zone-elsewhere"] == 0 and "zone-elsewhere" in group.empty_domains


def test_a_null_spread_selector_selects_no_pod_but_counts_every_pod():
    cluster = Cluster([pod("old", labels={"x": "y"}, node="n1")], [node("n1", "test-zone-1")])
    tsc = {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}
    p = pod("a", topologySpreadConstraints=[tsc])
    (group,) = build([p], cluster).topology_groups.values()
    assert group.domains["test-zone-1"] == 1 and not group.selects(p)


def test_match_label_keys_split_groups_by_the_pods_values():
    v1 = [pod(f"a{i}", labels={**APP, "version": "1"}, topologySpreadConstraints=[spread(matchLabelKeys=["version"])])
          for i in range(2)]
    v2 = [pod(f"b{i}", labels={**APP, "version": "2"}, topologySpreadConstraints=[spread(matchLabelKeys=["version"])])
          for i in range(2)]
    old = pod("old", labels={**APP, "version": "1"}, node="n1")
    t = build(v1 + v2, Cluster([old], [node("n1", "test-zone-1")]))
    groups = sorted(t.topology_groups.values(), key=lambda g: len(g.owners))
    assert len(groups) == 2 and all(len(g.owners) == 2 for g in groups)
    counts = sorted(g.domains["test-zone-1"] for g in groups)
    assert counts == [0, 1]


def test_pods_with_equal_constraints_share_one_group_even_with_other_selector_values():
    # hashstructure skips a Requirement's unexported values: filters on the same keys hash alike
    a = pod("a", topologySpreadConstraints=[spread()], nodeSelector={"pool": "a"})
    b = pod("b", topologySpreadConstraints=[spread()], nodeSelector={"pool": "b"})
    c = pod("c", topologySpreadConstraints=[spread()], nodeSelector={"team": "b"})
    t = build([a, b, c])
    assert sorted(len(g.owners) for g in t.topology_groups.values()) == [1, 2]


def test_min_domains_is_not_part_of_a_groups_identity():
    a = pod("a", topologySpreadConstraints=[spread(minDomains=3)])
    b = pod("b", topologySpreadConstraints=[spread()])
    (group,) = build([a, b]).topology_groups.values()
    assert group.min_domains == 3 and group.owners == {a.uid, b.uid}


# -- pod affinity ----------------------------------------------------------------------------------

def affinity(kind="podAffinity", key=ZONE, selector=APP, required=True, **term):
    t = {"topologyKey": key, "labelSelector": {"matchLabels": dict(selector)}, **term}
    if required:
        return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [t]}}
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": t}]}}


def test_self_selecting_affinity_bootstraps_a_domain_then_follows_it():
    pods = web(3, affinity=affinity())
    s = Scheduler(build(pods)).run(pods)
    assert set(s.placed.values()) == {"test-zone-1"} and not s.errors


def test_affinity_to_pods_that_do_not_exist_is_unsatisfiable():
    p = pod("a", labels={"app": "client"}, affinity=affinity())
    s = Scheduler(build([p])).run([p])
    assert s.errors == {"a": "unsatisfiable topology constraint for pod affinity, key=topology.kubernetes.io/zone "
                             "(counts = test-zone-1: 0, test-zone-2: 0, test-zone-3: 0, podDomains = "
                             "topology.kubernetes.io/zone Exists, nodeDomains = topology.kubernetes.io/zone Exists"}


def test_affinity_follows_an_existing_pod():
    cluster = Cluster([pod("server", node="n2")], [node("n2", "test-zone-2")])
    p = pod("a", labels={"app": "client"}, affinity=affinity())
    s = Scheduler(build([p], cluster)).run([p])
    assert s.placed == {"a": "test-zone-2"}


def test_affinity_groups_honor_nodepool_taints_for_their_domains():
    taint = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}
    pools = [node_pool("a", zones=ZONES[:1]), node_pool("b", zones=ZONES[1:], taints=[taint])]
    t = build([pod("p", affinity=affinity())], pools=pools, its={"a": [instance_type()], "b": [instance_type()]})
    (group,) = t.topology_groups.values()
    assert group.type == TopologyType.POD_AFFINITY and sorted(group.domains) == ["test-zone-1"]


def test_preferred_affinity_terms_are_groups_until_ignored():
    p = pod("p", affinity=affinity(required=False))
    assert len(build([p]).topology_groups) == 1
    assert len(build([p], policy=PREFERENCE_POLICY_IGNORE).topology_groups) == 0


def test_update_after_relaxation_releases_the_dropped_preference():
    p = pod("p", labels={"app": "client"}, affinity=affinity(required=False))
    t = build([p])
    (group,) = t.topology_groups.values()
    assert group.is_owned_by(p.uid)
    relaxed = PodInfo({**p.obj, "spec": {**p.spec, "affinity": {}}})
    assert t.update(relaxed) is None
    assert not group.is_owned_by(p.uid)
    got, err = t.add_requirements(relaxed, [], new_requirements(), new_requirements())
    assert err is None and got == new_requirements()


def test_namespace_selector_reads_the_clusters_namespaces():
    cluster = Cluster([pod("server", node="n2", namespace="team-a"), pod("other", node="n3", namespace="team-b")],
                      [node("n2", "test-zone-2"), node("n3", "test-zone-3")],
                      namespaces={"team-a": {"team": "a"}, "team-b": {"team": "b"}, "default": {}})
    p = pod("c", labels={"app": "client"}, affinity=affinity(namespaceSelector={"matchLabels": {"team": "a"}}))
    (group,) = build([p], cluster).topology_groups.values()
    assert group.namespaces == frozenset({"team-a"})
    assert group.domains == {"test-zone-1": 0, "test-zone-2": 1, "test-zone-3": 0}
    everywhere = pod("d", labels={"app": "client"}, affinity=affinity(namespaceSelector={}, namespaces=["x"]))
    (group,) = build([everywhere], cluster).topology_groups.values()
    assert group.namespaces == frozenset({"team-a", "team-b", "default", "x"})


# -- anti-affinity ---------------------------------------------------------------------------------

ANTI_TEXT = ("unsatisfiable topology constraint for pod anti-affinity, key=topology.kubernetes.io/zone (counts = "
             "test-zone-1a: 1, test-zone-1b: 1, test-zone-1c: 1, podDomains = topology.kubernetes.io/zone Exists, "
             "nodeDomains = topology.kubernetes.io/zone Exists")


def test_zonal_anti_affinity_blocks_every_domain_the_first_nodeclaim_may_be_in():
    """anti-affinity-*: the first pod's NodeClaim may still be in any zone, so every zone is
    blocked and the others fail with the text Karpenter prints."""
    zones = ("test-zone-1a", "test-zone-1b", "test-zone-1c")
    its = {"default": [instance_type(zones)]}
    pods = [pod(f"db-{i}", labels={"app": "db"}, affinity=affinity("podAntiAffinity", selector={"app": "db"}))
            for i in range(3)]
    t = build(pods, its=its)
    first, err = t.add_requirements(pods[0], [], new_requirements(), new_requirements())
    assert err is None and str(first.get(ZONE)) == "topology.kubernetes.io/zone In [test-zone-1a test-zone-1b test-zone-1c]"
    t.record(pods[0], [], first)
    for p in pods[1:]:
        got, err = t.add_requirements(p, [], new_requirements(), new_requirements())
        assert got is None and str(err) == ANTI_TEXT


def test_hostname_anti_affinity_puts_each_pod_on_its_own_nodeclaim():
    pods = [pod(f"db-{i}", labels={"app": "db"}, affinity=affinity("podAntiAffinity", HOST, {"app": "db"}))
            for i in range(3)]
    t = build(pods)
    s = Scheduler(t).run(pods)
    assert len(s.placed) == 3
    taken = new_requirements(new_requirement(HOST, "In", "hostname-placeholder-0001"))
    got, err = t.add_requirements(pod("db-9", labels={"app": "db"}, affinity=affinity("podAntiAffinity", HOST, {"app": "db"})),
                                  [], new_requirements(), taken)
    assert got is None and "key=kubernetes.io/hostname" in str(err)


def test_existing_pods_anti_affinity_keeps_selected_pods_out_of_its_zone():
    guard = pod("guard", labels={"app": "guard"}, node="n1",
                affinity=affinity("podAntiAffinity", selector={"app": "web"}))
    cluster = Cluster([guard], [node("n1", "test-zone-1")])
    p = pod("web-0")
    t = build([p], cluster)
    assert not t.topology_groups and len(t.inverse_topology_groups) == 1
    got, err = t.add_requirements(p, [], new_requirements(), new_requirements())
    assert err is None and got.get(ZONE).values() == ["test-zone-2", "test-zone-3"]
    # a pod the term does not select is free
    got, err = t.add_requirements(pod("x", labels={"app": "other"}), [], new_requirements(), new_requirements())
    assert err is None and not got.has(ZONE)


def test_pending_pods_anti_affinity_is_tracked_in_reverse_when_it_lands():
    db = pod("db-0", labels={"app": "db"}, affinity=affinity("podAntiAffinity", selector={"app": "web"}))
    w = pod("web-0")
    t = build([db, w])
    reqs = new_requirements(new_requirement(ZONE, "In", "test-zone-2"))
    got, err = t.add_requirements(db, [], new_requirements(), reqs)
    assert err is None
    t.record(db, [], reqs)
    got, err = t.add_requirements(w, [], new_requirements(), new_requirements())
    assert err is None and got.get(ZONE).values() == ["test-zone-1", "test-zone-3"]


def test_inverse_groups_ignore_preferred_anti_affinity_of_existing_pods():
    guard = pod("guard", labels={"app": "guard"}, node="n1",
                affinity=affinity("podAntiAffinity", selector={"app": "web"}, required=False))
    t = build([pod("web-0")], Cluster([guard], [node("n1", "test-zone-1")]))
    assert not t.inverse_topology_groups


# -- the error text --------------------------------------------------------------------------------

def test_counts_are_printed_sorted_and_cut_after_25():
    counts = {f"zone-{i:02d}": i % 3 for i in range(30)}
    text = pretty_map(counts, 25)
    assert text.startswith("zone-00: 0, zone-01: 1, zone-02: 2,") and text.endswith("zone-24: 0 and 5 other(s)")
    assert pretty_map({}, 25) == ""


def test_the_error_reads_the_counts_when_it_is_printed():
    pods = [pod(f"db-{i}", labels={"app": "db"}, affinity=affinity("podAntiAffinity", selector={"app": "db"}))
            for i in range(2)]
    t = build(pods)
    reqs = new_requirements(new_requirement(ZONE, "In", *ZONES))
    t.record(pods[0], [], reqs)
    _, err = t.add_requirements(pods[1], [], new_requirements(), new_requirements())
    assert isinstance(err, TopologyError)
    before = str(err)
    err.topology.record("test-zone-9")
    assert before != str(err) and "test-zone-9: 1" in str(err)


# -- Go's readings kept ------------------------------------------------------------------------------

def test_domain_groups_take_every_value_a_requirement_holds():
    """buildDomainGroups inserts Values() of each requirement: a NotIn's excluded values too."""
    from kexplain.karpenter.provisioning.scheduling.topology import build_domain_groups
    pool = node_pool(requirements=[{"key": "rack", "operator": "NotIn", "values": ["r9"]},
                                   {"key": "team", "operator": "In", "values": ["a", "b"]},
                                   {"key": ZONE, "operator": "NotIn", "values": ["test-zone-3"]}])
    groups = build_domain_groups([pool], {"default": [instance_type()]})
    assert sorted(groups["rack"]) == ["r9"] and sorted(groups["team"]) == ["a", "b"]
    assert sorted(groups[ZONE]) == ["test-zone-1", "test-zone-2"]
    assert sorted(groups[CAPACITY]) == ["on-demand", "spot"]
    assert build_domain_groups([pool], {}) == {}          # a NodePool without instance types adds nothing


def test_domain_groups_are_built_once_for_the_same_pools_and_types():
    """Every simulation of a disruption pass asks again with the same NodePool and instance type
    objects (new lists): one build; another type object or NodePool builds anew."""
    from kexplain.karpenter.provisioning.scheduling.topology import build_domain_groups
    pool, its = node_pool(), [instance_type(), instance_type(zones=("test-zone-1",))]
    first = build_domain_groups([pool], {"default": list(its)})
    assert build_domain_groups([pool], {"default": list(its)}) is first
    other = build_domain_groups([pool], {"default": [its[0], instance_type(zones=("test-zone-1",))]})
    assert other is not first and other == first
    narrower = build_domain_groups([pool], {"default": its[1:]})
    assert sorted(narrower[ZONE]) == ["test-zone-1"] and sorted(first[ZONE]) != ["test-zone-1"]


def test_a_pools_domains_are_those_of_its_requirements_with_each_types():
    """Each type's requirements merged into the NodePool's as Go merges them (its keys first,
    narrowed by the type's; then the type's own), counted key by key in that order."""
    from kexplain.karpenter.provisioning.scheduling.topology import _pool_domains, _template
    from kexplain.karpenter.scheduling.requirements import new_node_selector_requirements_with_min_values
    pool = node_pool(requirements=[{"key": CAPACITY, "operator": "In", "values": ["spot", "on-demand"]},
                                   {"key": "team", "operator": "In", "values": ["a"]},
                                   {"key": ZONE, "operator": "NotIn", "values": ["test-zone-3"]}])
    its = [instance_type(), instance_type(zones=("test-zone-2",), capacity=("spot",)),
           SimpleNamespace(requirements=new_requirements(new_requirement("rack", "In", "r1", "r2"),
                                                         new_requirement(ZONE, "In", "test-zone-3")))]
    domains, _ = _pool_domains(pool, its)
    reqs, labels, _ = _template(pool)
    base = new_node_selector_requirements_with_min_values(reqs)
    base.add(*new_requirements(*(new_requirement(k, "In", v) for k, v in labels.items())).values())
    expected: dict[str, dict[str, int]] = {}
    for it in its:
        merged = new_requirements(*base.values())
        merged.add(*it.requirements.values())
        for label, requirement in merged.items():
            for v in requirement.values():
                expected.setdefault(label, {})[v] = expected.setdefault(label, {}).get(v, 0) + 1
    for label, requirement in base.items():
        if requirement.operator() == "In":
            for v in requirement.values():
                expected.setdefault(label, {})[v] = expected[label].get(v, 0) + 1
    assert [(label, list(times.items())) for label, times in expected.items()] == domains


@pytest.mark.parametrize("selector", [
    {"matchLabels": {"app": "{{ bad }}"}},                                         # a value the API refuses
    {"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["web"]}]},  # not an operator
    {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]},          # In without values
])
def test_a_selector_the_api_would_refuse_selects_nothing(selector):
    p = pod("a", topologySpreadConstraints=[{**spread(), "labelSelector": selector}])
    (group,) = build([p]).topology_groups.values()
    assert not group.selects(p)


def test_repeated_node_affinity_terms_cancel_out_in_the_hash():
    """hashstructure XORs a slice's elements: two equal terms hash as no term at all."""
    term = {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}
    twice = pod("a", topologySpreadConstraints=[spread()], affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term, term]}}})
    plain = pod("b", topologySpreadConstraints=[spread()], nodeSelector={})
    once = pod("c", topologySpreadConstraints=[spread()], affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}})
    t = build([twice, plain, once])
    # `plain`'s filter holds one empty term, `twice`'s none (cancelled), `once`'s one keyed term
    assert len(t.topology_groups) == 3
    t = build([twice, pod("d", topologySpreadConstraints=[spread()], affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}})])
    assert len(t.topology_groups) == 1


def test_anti_affinity_records_a_not_in_s_values():
    """Record blocks requirements.Get(key).Values(): for a NotIn, the values it excludes."""
    db = pod("db-0", labels={"app": "db"}, affinity=affinity("podAntiAffinity", selector={"app": "db"}))
    t = build([db])
    t.record(db, [], new_requirements(new_requirement(ZONE, "NotIn", "test-zone-3")))
    (group,) = t.topology_groups.values()
    assert group.domains == {"test-zone-1": 0, "test-zone-2": 0, "test-zone-3": 1}


def test_spread_records_only_a_settled_domain():
    p = pod("web-0", topologySpreadConstraints=[spread()])
    t = build([p])
    (group,) = t.topology_groups.values()
    t.record(p, [], new_requirements(new_requirement(ZONE, "In", "test-zone-1", "test-zone-2")))
    assert set(group.domains.values()) == {0}
    t.record(p, [], new_requirements(new_requirement(ZONE, "In", "test-zone-2")))
    assert group.domains["test-zone-2"] == 1


def test_domain_groups_read_a_nodepool_with_labels_and_taints():
    from kexplain.karpenter.provisioning.scheduling.topology import build_domain_groups
    taint = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}
    raw = node_pool(zones=ZONES[:2], labels={"team": "a"}, taints=[taint])
    groups = build_domain_groups([raw], {"default": [instance_type()]})
    assert sorted(groups[ZONE]) == ["test-zone-1", "test-zone-2"]
    # inserted per instance type and again as the NodePool's own In value: Go appends the taints twice
    assert groups["team"] == {"a": [(taint,), (taint,)]}


@pytest.mark.parametrize("before", [None, (), ({"key": "a", "effect": "NoSchedule"},)])
@pytest.mark.parametrize("taints", [(), ({"key": "b", "effect": "NoSchedule"},)])
@pytest.mark.parametrize("times", [0, 1, 3])
def test_a_domain_inserted_n_times_at_once_is_inserted_n_times(before: Any, taints: tuple, times: int) -> None:
    from kexplain.karpenter.provisioning.scheduling.topologydomaingroup import TopologyDomainGroup
    once, repeated = TopologyDomainGroup(), TopologyDomainGroup()
    if before is not None:
        once.insert_times("z", before, 1)
        repeated.insert_times("z", before, 1)
    once.insert_times("z", taints, times)
    for _ in range(times):
        repeated.insert_times("z", taints, 1)
    assert once == repeated


def test_a_domain_is_counted_when_any_of_its_nodepools_taints_are_tolerated_repeats_aside() -> None:
    from kexplain.karpenter.provisioning.scheduling.topologydomaingroup import TopologyDomainGroup
    batch, gpu = {"key": "batch", "effect": "NoSchedule"}, {"key": "gpu", "effect": "NoSchedule"}
    group = TopologyDomainGroup()
    group.insert_times("z1", (batch,), 3)
    group.insert_times("z1", (gpu,), 2)
    group.insert_times("z2", (batch,), 4)
    tolerates_gpu = PodInfo({"metadata": {"name": "p"}, "spec": {"tolerations": [{"key": "gpu", "operator": "Exists"}]}})
    assert list(group.for_each_domain(tolerates_gpu, "Honor")) == ["z1"]
    assert list(group.for_each_domain(tolerates_gpu, "Ignore")) == ["z1", "z2"]


# -- the groups a pod is asked of -------------------------------------------------------------------

def _every_group(t) -> None:
    """`t` asking every topology group of every pod, as the scan before the indexes did (`_selecting`,
    `_owned`, `_inverse_selecting`, `_inverse_owned`): the reference the indexed topology must equal."""
    t._selecting = SimpleNamespace(candidates=lambda labels: list(t.topology_groups.values()))
    t._inverse_owned_by = lambda uid: [tg for tg in t.inverse_topology_groups.values() if tg.is_owned_by(uid)]

    def matching(p, taints, requirements=None, allow_undefined=frozenset()):
        owned = [tg for tg in t.topology_groups.values() if tg.is_owned_by(p.uid)]
        return [*owned, *(tg for tg in t.inverse_topology_groups.values() if tg.selects(p))]
    t.get_matching_topologies = matching


def test_the_groups_a_pod_is_asked_of_are_those_every_group_would_give() -> None:
    """Record counts a pod only in the groups whose selectors may select it (by a label its selector
    requires, else always), and a pod's own groups come in the groups' order: placements, errors and every
    group's counts equal those of asking every group of every pod, over selectors by labels, by several
    values, by NotIn alone, by Exists, empty and null, with owners released on update; the same of the inverse
    anti-affinity groups, of bound pods' and pending pods' required terms."""
    def spreads(i: int) -> list[dict]:
        selectors = [{"matchLabels": {"app": "web"}}, {"matchExpressions": [{"key": "app", "operator": "In",
                                                                              "values": ["web", "api"]}]},
                     {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["db"]}]},
                     {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, {}, None,
                     {"matchLabels": {"tier": f"t{i % 3}", "app": "api"}}]
        return [{"maxSkew": 1 + i % 2, "topologyKey": (ZONE, HOST)[j % 2], "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": selector} for j, selector in enumerate(selectors) if (i + j) % 3]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"tier": "t1"}}, "topologyKey": HOST}]}}
    repelling = [{"matchLabels": {"app": "db"}}, {"matchExpressions": [{"key": "tier", "operator": "In",
                                                                         "values": ["t0", "t2"]}]},
                 {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]}, None]

    def repels(i: int) -> dict:
        return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": repelling[i % len(repelling)], "topologyKey": (HOST, ZONE)[i % 2]}]}}} \
            if i % 3 == 0 else {}
    bound = [pod(f"b-{i}", {"app": ("web", "api", "db")[i % 3], "tier": f"t{i % 3}"}, node=f"n{i % 4}", **repels(i))
             for i in range(12)]
    cluster = Cluster(bound, [node(f"n{i}", ZONES[i % 3]) for i in range(4)])
    pending = [pod(f"p-{i}", {"app": ("web", "api", "db")[i % 3], **({"tier": f"t{i % 3}"} if i % 2 else {})},
                   topologySpreadConstraints=spreads(i), **({"affinity": anti} if i % 5 == 0 else {}))
               for i in range(24)]
    outcomes = []
    for reference in (False, True):
        t = build(pending, cluster)
        if reference:
            _every_group(t)
        s = Scheduler(t).run(pending)
        t.update(pending[0])           # (its groups again, owners released and taken)
        outcomes.append((s.placed, s.errors, [(tg.hash(), dict(tg.domains), sorted(tg.owners))
                                             for tg in t.topology_groups.values()],
                         [[tg.hash() for tg in t.get_matching_topologies(p, ())] for p in pending],
                         [(tg.hash(), dict(tg.domains), sorted(tg.owners)) for tg in t.inverse_topology_groups.values()]))
    assert outcomes[0] == outcomes[1]
    assert len(outcomes[0][2]) > 10 and outcomes[0][0] and any(d for _, d, _ in outcomes[0][2])
    assert len(outcomes[0][4]) > 3 and any(d for _, d, _ in outcomes[0][4])


def test_domains_registered_together_are_those_registered_one_by_one() -> None:
    """`TopologyGroup.register` of many domains at once (a new group's: each once, in their order),
    `register_zeros` (a new group's copied whole) and `register_known` (nothing when all are known) leave the domains, their order and the empty ones as
    registering them one by one does."""
    from kexplain.karpenter.provisioning.scheduling.topologygroup import TopologyGroup

    def group() -> TopologyGroup:
        return TopologyGroup(TopologyType.POD_ANTI_AFFINITY, HOST, pod("p"), ("default",), {"matchLabels": APP},
                             1, None, None, None, None)

    # (the fifth: more domains than known, some known, some twice: the new ones taken at once)
    batches = [["h3", "h1", "h3", "h2"], ["h2", "h4"], ["h1"], [], ["h6", "h2", "h5", "h6", "h1", "h7"]]
    together, one_by_one, known, zeros = group(), group(), group(), group()
    for batch in batches:
        together.register(*batch)
        known.register_known(batch, set(batch))
        zeros.register_zeros(dict.fromkeys(batch, 0), set(batch))
        for domain in batch:
            one_by_one.register(domain)
        for tg in (together, one_by_one, known, zeros):
            if "h1" in tg.domains:
                tg.record("h1")
    assert list(zeros.domains.items()) == list(one_by_one.domains.items())
    assert zeros.empty_domains == one_by_one.empty_domains
    for tg in (together, known):
        assert list(tg.domains.items()) == list(one_by_one.domains.items())
        assert tg.empty_domains == one_by_one.empty_domains and list(tg.empty_domains) == list(one_by_one.empty_domains)
    assert list(one_by_one.domains) == ["h3", "h1", "h2", "h4", "h6", "h5", "h7"] and one_by_one.domains["h1"] == 5


def _groups_counted(cluster: Cluster, state: list, scheduled: list) -> list:
    """Each group of a topology over `cluster` (its state nodes `state`) for `scheduled`: its domains
    in order with their counts, and its empty domains."""
    pool = node_pool(zones=ZONES)
    topology, err = new_topology(cluster, state, [pool], {"default": [instance_type()]}, scheduled, "Respect")
    assert err is None, str(err)
    return [(key, list(tg.domains.items()), sorted(tg.empty_domains)) for key, tg in topology.topology_groups.items()]


@pytest.mark.parametrize("seed", range(12))
def test_counts_made_once_per_cluster_are_the_counts_made_pod_by_pod(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each simulation's groups take their counts from what the pass counted once of every pod, less
    the simulation's own pods (`Counts.record`): the same domains, in the same order, with the same
    counts and empty ones as counting pod by pod, whichever pods are left out, on nodes the
    simulation knows or not (a candidate's: its hostname is a domain only its pods name)."""
    import random

    from kexplain.karpenter.provisioning.scheduling import topology as topology_module
    rng = random.Random(seed)
    nodes = [node(f"n{i}", rng.choice([*ZONES, None])) for i in range(8)]
    apps = ["web", "api", "db"]
    constraints = [[spread()], [spread(HOST)], [{**spread(HOST), "labelSelector": {"matchLabels": {"app": "api"}}}]]
    bound = []
    for i in range(40):
        app = rng.choice(apps)
        spec = {"topologySpreadConstraints": rng.choice(constraints)}
        if rng.random() < 0.3:
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": HOST, "labelSelector": {"matchLabels": {"app": app}}}]}}
        bound.append(pod(f"p{i}", labels={"app": app}, node=f"n{rng.randrange(9)}", **spec))   # (n8: no node)
    cluster = Cluster(bound, nodes)
    for _ in range(6):
        state = [StateNode(n) for n in nodes if rng.random() < 0.7]
        scheduled = rng.sample(bound, rng.randrange(1, 12))
        once = _groups_counted(cluster, state, scheduled)
        with monkeypatch.context() as m:
            m.setattr(topology_module.Counts, "record", topology_module.Counts.replay)
            one_by_one = _groups_counted(cluster, state, scheduled)
        assert once == one_by_one
        assert once


def test_groups_that_filter_nodes_alike_by_hash_are_each_counted_on_their_own_nodes() -> None:
    """Two simulations over one cluster whose pods spread alike but select other nodes (a nodeSelector's
    value, which a group's hash leaves out, as Go's does): each counts on its own nodes, as counting
    afresh for each simulation does, not on the first simulation's."""
    from kexplain.karpenter.provisioning.scheduling import topology as topology_module
    nodes = [node("na", ZONES[0], pool="a"), node("nb", ZONES[1], pool="b")]
    bound = [pod(f"old{i}", node="na" if i < 3 else "nb") for i in range(4)]
    sims = [pod(f"new-{p}", topologySpreadConstraints=[spread()], nodeSelector={"pool": p}) for p in ("a", "b", "a")]

    def counted(sim: PodInfo, cluster: Cluster) -> dict:
        (group,) = build([sim], cluster).topology_groups.values()
        return dict(group.domains)

    cluster = Cluster(bound, nodes)
    shared = [counted(sim, cluster) for sim in sims]
    afresh = []
    for sim in sims:
        topology_module._counted_memo.clear()
        afresh.append(counted(sim, Cluster(bound, nodes)))
    assert shared == afresh
    assert (afresh[1][ZONES[0]], afresh[1][ZONES[1]]) == (0, 1)      # (pool b's node alone counts)


def test_bound_pods_repelling_read_once_per_cluster_give_each_simulation_its_own_groups() -> None:
    """The bound pods' required anti-affinity terms and their nodes' labels, read once per cluster
    (`Counted.repelling`): simulations that each reschedule other bound pods (left out of the inverse
    groups) over one cluster build the same inverse groups, counts and owners as each built afresh."""
    from kexplain.karpenter.provisioning.scheduling import topology as topology_module
    selectors = [{"matchLabels": {"app": "db"}}, None, {"matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["t0", "t2"]}]}, {}]

    def repels(i: int) -> dict:
        terms = [{"labelSelector": selectors[i % len(selectors)], "topologyKey": (HOST, ZONE)[i % 2]}]
        if i % 5 == 0:
            terms.append({"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST})
        return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": terms}}}
    nodes = [node(f"n{i}", ZONES[i % 3]) for i in range(5)]
    bound = [pod(f"b-{i}", {"app": ("web", "api", "db")[i % 3], "tier": f"t{i % 3}"}, node=f"n{i % 5}",
                 **(repels(i) if i % 4 else {})) for i in range(20)]
    moved = [bound[1:4], bound[5:6], [], bound[9:15], bound[1:4]]

    def groups(t) -> list:
        return [(tg.hash(), list(tg.domains.items()), sorted(tg.owners)) for tg in t.inverse_topology_groups.values()]
    cluster = Cluster(bound, nodes)
    shared = [groups(build(pods, cluster)) for pods in moved]
    afresh = []
    for pods in moved:
        topology_module._counted_memo.clear()
        afresh.append(groups(build(pods, Cluster(bound, nodes))))
    assert shared == afresh
    assert shared[0] != shared[1] and all(len(g) > 3 for g in shared)
