"""Topology-aware scheduling's API (topology_types.go, workload_types.go, pkg/util/tas): a Topology's
levels, a pod set's topology request (from its template's annotations, as the job integrations
build it, or a Workload's `topologyRequest`) and a topology assignment, held as Kueue's internal
list of domains and written in v1beta2's compact slices (`V1Beta2From`)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

from kexplain.errors import InputError, Source
from kexplain.kueue.apis import schema
from kexplain.kueue.apis.meta import ObjectMeta, object_meta

TOPOLOGY = "Topology"
HOSTNAME = "kubernetes.io/hostname"
REQUIRED_ANNOTATION = "kueue.x-k8s.io/podset-required-topology"
PREFERRED_ANNOTATION = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED_ANNOTATION = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE_REQUIRED_ANNOTATION = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE_ANNOTATION = "kueue.x-k8s.io/podset-slice-size"
POD_SET_GROUP_ANNOTATION = "kueue.x-k8s.io/podset-group-name"      # kueue.PodSetGroupName
# The v1beta2 API's limits: domains (roots, pod counts) per slice, slices per assignment
MAX_DOMAINS_PER_SLICE = 100_000
MAX_SLICES = 1_000
# strconv.ParseBool's spellings
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


@dataclass(frozen=True)
class Topology:
    meta: ObjectMeta
    levels: tuple[str, ...]             # node labels, highest level first

    @property
    def name(self) -> str:
        return self.meta.name


def parse_topology(obj: dict[str, Any], source: Source | None = None, *, validate: str = "strict",
                   warnings: list[str] | None = None) -> Topology:
    stored = schema.store(obj, schema.TOPOLOGY, TOPOLOGY, source, validate, warnings)
    levels = (stored.get("spec") or {}).get("levels") or ()
    return Topology(object_meta(stored, source, namespaced=False), tuple(str(lv["nodeLabel"]) for lv in levels))


@dataclass(frozen=True)
class IndexLabels:
    """What an integration tells NewPodSetTopologyRequest of its pods (PodIndexLabel, SubGroup): the
    label holding a pod's index in its pod set (or its sub-group: a JobSet's Job), and the label and
    count of the sub-groups; the topology ungater ranks the pods by them."""

    pod_index: str | None = None
    sub_group: str | None = None
    sub_group_count: int | None = None


@dataclass(frozen=True)
class TopologyRequest:
    """PodSetTopologyRequest: one of required / preferred (a level's node label) / unconstrained,
    the slice layer (a level and a size), the integration's index labels (`IndexLabels`) and the pod
    set group (placed with the other pod sets of its name; only with required or preferred)."""

    required: str | None = None
    preferred: str | None = None
    unconstrained: bool | None = None
    slice_topology: str | None = None
    slice_size: int | None = None
    index: IndexLabels = IndexLabels()
    pod_set_group: str | None = None

    def explicit(self) -> bool:
        """IsExplicitlyRequestingTAS."""
        return (self.unconstrained is not None or self.required is not None or self.preferred is not None
                or self.slice_topology is not None or self.slice_size is not None)


def request_from_annotations(annotations: Mapping[str, Any], source: Source | None = None,
                             obj: Any = None, path: str = "", index: IndexLabels = IndexLabels()
                             ) -> TopologyRequest | None:
    """NewPodSetTopologyRequest(...).PodIndexLabel(...).SubGroup(...).Build(): None when the template
    asks for no topology and the integration gives no index label."""
    required, preferred = annotations.get(REQUIRED_ANNOTATION), annotations.get(PREFERRED_ANNOTATION)
    unconstrained = annotations.get(UNCONSTRAINED_ANNOTATION)
    slice_level, slice_size = annotations.get(SLICE_REQUIRED_ANNOTATION), annotations.get(SLICE_SIZE_ANNOTATION)
    has_slice = slice_level is not None and slice_size is not None
    if required is None and preferred is None and unconstrained is None and not has_slice and index == IndexLabels():
        return None
    flag = None
    if required is None and preferred is None:
        if unconstrained is not None:
            text = str(unconstrained)
            if text not in _TRUE | _FALSE:
                raise InputError(f'strconv.ParseBool: parsing "{text}": invalid syntax', source=source, obj=obj,
                                 field=f"{path}.annotations.{UNCONSTRAINED_ANNOTATION}")
            flag = text in _TRUE
    size = None
    if has_slice:
        try:
            size = int(str(slice_size), 10)
        except ValueError:
            raise InputError(f'strconv.ParseInt: parsing "{slice_size}": invalid syntax', source=source, obj=obj,
                             field=f"{path}.annotations.{SLICE_SIZE_ANNOTATION}") from None
    group = annotations.get(POD_SET_GROUP_ANNOTATION)
    return TopologyRequest(str(required) if required is not None else None,
                           str(preferred) if required is None and preferred is not None else None, flag,
                           str(slice_level) if has_slice else None, size, index,
                           str(group) if group is not None and (required is not None or preferred is not None) else None)


def request_from_spec(raw: Any) -> TopologyRequest | None:
    """A Workload pod set's `topologyRequest` as written."""
    if not isinstance(raw, Mapping):
        return None
    size = raw.get("podSetSliceSize")
    unconstrained = raw.get("unconstrained")
    count = raw.get("subGroupCount")
    index = IndexLabels(_text(raw.get("podIndexLabel")), _text(raw.get("subGroupIndexLabel")),
                        count if isinstance(count, int) and not isinstance(count, bool) else None)
    return TopologyRequest(_text(raw.get("required")), _text(raw.get("preferred")),
                           unconstrained if isinstance(unconstrained, bool) else None,
                           _text(raw.get("podSetSliceRequiredTopology")), size if isinstance(size, int) else None,
                           index, _text(raw.get("podSetGroupName")))


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class DomainAssignment:
    values: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class TopologyAssignment:
    """utiltas.TopologyAssignment: the levels kept (only the hostname when it is the lowest) and the
    domains with their pod counts, in order."""

    levels: tuple[str, ...]
    domains: tuple[DomainAssignment, ...]

    def pods(self) -> int:
        return sum(d.count for d in self.domains)


def _value_at(values: Mapping[str, Any], idx: int) -> str:
    if values.get("universal") is not None:
        return str(values["universal"])
    ind = values.get("individual") or {}
    return f"{ind.get('prefix') or ''}{(ind.get('roots') or [])[idx]}{ind.get('suffix') or ''}"


def _count_at(slice_: Mapping[str, Any], idx: int) -> int:
    counts = slice_.get("podCounts") or {}
    if counts.get("universal") is not None:
        return int(counts["universal"])
    return int((counts.get("individual") or [])[idx])


def internal_from(raw: Any, source: Source | None = None, obj: Any = None, path: str = "") -> TopologyAssignment:
    """InternalFrom: a stored (v1beta2) assignment's slices as its list of domains."""
    if not isinstance(raw, Mapping):
        raise InputError("must be an object", source=source, obj=obj, field=path)
    levels = tuple(str(lv) for lv in raw.get("levels") or ())
    domains = []
    try:
        for slice_ in raw.get("slices") or ():
            per_level = slice_.get("valuesPerLevel") or []
            for i in range(int(slice_.get("domainCount") or 0)):
                domains.append(DomainAssignment(tuple(_value_at(per_level[lv], i) for lv in range(len(levels))),
                                                _count_at(slice_, i)))
    except (AttributeError, IndexError, TypeError, ValueError):
        raise InputError("slices do not match their domainCount, levels and podCounts", source=source, obj=obj,
                         field=path) from None
    return TopologyAssignment(levels, tuple(domains))


def _compact(values: list[str]) -> dict[str, Any]:
    """fillSingleCompactSliceValues: one level's values as universal, or roots between the longest
    common prefix and suffix (never overlapping)."""
    prefix = suffix = values[0]
    min_len = max_len = len(values[0])
    for s in values[1:]:
        n = len(s)
        min_len, max_len = min(min_len, n), max(max_len, n)
        prefix, suffix = prefix[:n], suffix[len(suffix) - n:] if n < len(suffix) else suffix
        prefix = prefix[:next((i for i in range(len(prefix)) if s[i] != prefix[i]), len(prefix))]
        keep = next((i for i in range(len(suffix)) if s[n - 1 - i] != suffix[len(suffix) - 1 - i]), len(suffix))
        suffix = suffix[len(suffix) - keep:]
    if len(prefix) == max_len:
        return {"universal": prefix}
    if len(prefix) + len(suffix) > min_len:
        prefix = prefix[:min_len - len(suffix)]
    individual: dict[str, Any] = {}
    if prefix:
        individual["prefix"] = prefix
    if suffix:
        individual["suffix"] = suffix
    individual["roots"] = [s[len(prefix):len(s) - len(suffix)] for s in values]
    return {"individual": individual}


def _slice(levels: tuple[str, ...], domains: Sequence[DomainAssignment]) -> dict[str, Any]:
    """compactSliceEncoding: each level compacted, pod counts universal when all equal."""
    per_level = [_compact([d.values[i] for d in domains]) for i in range(len(levels))]
    counts = [d.count for d in domains]
    pod_counts = {"universal": counts[0]} if len(set(counts)) == 1 else {"individual": counts}
    return {"domainCount": len(domains), "valuesPerLevel": per_level, "podCounts": pod_counts}


def v1beta2(assignment: TopologyAssignment, by_hostname_prefix: bool = False) -> dict[str, Any]:
    """V1Beta2From: one compact slice (v0.17); with `by_hostname_prefix`
    (TASAssignmentsEncodingByHostnamePrefix, v0.19) runs of hostnames sharing a reusable
    `-`-delimited prefix as slices of their own, unless one slice serializes shorter."""
    levels, domains = assignment.levels, assignment.domains
    single = {"levels": list(levels), "slices": [_slice(levels, domains)] if domains else []}
    if not by_hostname_prefix:
        return single
    keys = _prefix_keys(levels, domains) if len(domains) > 1 and levels and levels[-1] == HOSTNAME else None
    runs: list[list[DomainAssignment]] = []
    for i, d in enumerate(domains):
        if runs and keys is not None and keys[i] == keys[i - 1]:
            runs[-1].append(d)
        elif runs and keys is None:
            runs[-1].append(d)
        else:
            runs.append([d])
    slices = [_slice(levels, run[k:k + MAX_DOMAINS_PER_SLICE]) for run in runs
              for k in range(0, len(run), MAX_DOMAINS_PER_SLICE)]
    by_prefix = {"levels": list(levels), "slices": slices}
    if len(slices) <= 1 or len(domains) > MAX_DOMAINS_PER_SLICE:
        return by_prefix
    return single if len(_go_json(single)) < len(_go_json(by_prefix)) else by_prefix


def _go_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _prefix_keys(levels: tuple[str, ...], domains: Sequence[DomainAssignment]) -> list[str] | None:
    """reusableHostnamePrefixKeys: per domain its longest `-`-ended hostname prefix that another
    domain shares, at the deepest depth that keeps the slices within the API's limit."""
    names = [d.values[len(levels) - 1] for d in domains]
    ends = [[i + 1 for i in range(len(n) - 1) if n[i] == "-"] for n in names]
    counts: dict[str, int] = {}
    for n, e in zip(names, ends):
        for end in e:
            counts[n[:end]] = min(2, counts.get(n[:end], 0) + 1)
    for depth in range(max((len(e) for e in ends), default=0), 0, -1):
        keys = []
        for n, e in zip(names, ends):
            keys.append(next((n[:end] for end in reversed(e[:depth]) if counts[n[:end]] >= 2), ""))
        runs = [1]
        for i in range(1, len(keys)):
            if keys[i] == keys[i - 1]:
                runs[-1] += 1
            else:
                runs.append(1)
        if sum(-(-r // MAX_DOMAINS_PER_SLICE) for r in runs) <= MAX_SLICES:
            return keys
    return None


def domains_view(assignment: TopologyAssignment) -> dict[str, Any]:
    """The document's `topologyDomains`: the same assignment, one `{values, count}` per domain."""
    return {"levels": list(assignment.levels),
            "domains": [{"values": list(d.values), "count": d.count} for d in assignment.domains]}


def node_selectors(assignment: TopologyAssignment) -> Iterator[tuple[dict[str, str], int]]:
    """Each domain's node labels (level -> value) and its pod count: what Kueue's topology
    ungater puts in the pods' node selectors."""
    for d in assignment.domains:
        yield dict(zip(assignment.levels, d.values)), d.count
