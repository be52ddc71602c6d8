"""Requirements: one Requirement per label key (`pkg/scheduling/requirements.go`), built from
NodePools, labels and pods, and the two questions Karpenter asks of them (`intersects`,
`compatible`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.fielderrors import go_quote
from kexplain.apimachinery.gosort import go_sort
from kexplain.apimachinery.selectors import EXISTS, IN
from kexplain.karpenter.apis.labels import RESTRICTED_LABELS, WELL_KNOWN_LABELS
from kexplain.karpenter.apis.nodeclaim import NodeSelectorRequirementWithMinValues
from kexplain.karpenter.errors import KarpenterError, multierr_append
from kexplain.karpenter.scheduling.requirement import Requirement, new_requirement

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.pod import PodInfo

# CompatibilityOptions.AllowUndefined as AllowUndefinedWellKnownLabels sets it.
ALLOW_UNDEFINED_WELL_KNOWN_LABELS = WELL_KNOWN_LABELS
_NONE: frozenset[str] = frozenset()


# -- errors as values (kexplain.karpenter.errors) ------------------------------------------------
class UndefinedLabelError(KarpenterError):
    """A required custom label that the other side does not define."""

    def __init__(self, key: str, hint: str = "") -> None:
        super().__init__()
        self.key = key
        self.hint = hint            # the well-known or defined key it may be a typo of, or ""

    def __str__(self) -> str:
        hint = f" (typo of {go_quote(self.hint)}?)" if self.hint else ""
        return f"label {go_quote(self.key)} does not have known values{hint}"


class BadKeyError(KarpenterError):
    """badKeyError: one key both sides define with no common value."""

    def __init__(self, key: str, incoming: Requirement, existing: Requirement) -> None:
        super().__init__()
        self.key = key
        self.incoming = incoming
        self.existing = existing

    def __str__(self) -> str:
        return f"key {self.key}, {self.incoming} not in {self.existing}"


# -- Requirements --------------------------------------------------------------------------------
class Requirements(dict):
    """Requirements by key (Go's map[string]*Requirement). `get(key)` is Go's Get: an undefined
    key reads as `key Exists`."""

    def __repr__(self) -> str:
        return f"Requirements({self})"

    def add(self, *requirements: Requirement) -> None:
        """Add: intersected with what the key already requires (mutates this map)."""
        for requirement in requirements:
            existing = dict.get(self, requirement.key)
            if existing is not None:
                requirement = requirement.intersection(existing)
            self[requirement.key] = requirement

    def get(self, key: str) -> Requirement:  # type: ignore[override]
        got = dict.get(self, key)
        return got if got is not None else new_requirement(key, EXISTS)

    def has(self, key: str) -> bool:
        return key in self

    def copy(self) -> "Requirements":  # type: ignore[override]
        """DeepCopy: each Requirement copied too."""
        return Requirements({k: r.copy() for k, r in self.items()})

    def has_min_values(self) -> bool:
        return any(r.min_values is not None for r in dict.values(self))

    def node_selector_requirements(self) -> list[NodeSelectorRequirementWithMinValues]:
        """NodeSelectorRequirements: as the API writes them (both bounds: a Gte and an Lte), in
        key order (Go's is a map's)."""
        out: list[NodeSelectorRequirementWithMinValues] = []
        for key in sorted(self):
            r = dict.__getitem__(self, key)
            if r.gte is not None and r.lte is not None:
                out.extend(r.bounded_node_selector_requirements())
            else:
                out.append(r.node_selector_requirement())
        return out

    # -- the questions -------------------------------------------------------------------------
    def undefined_keys(self, requirements: "Requirements", allow_undefined: frozenset[str] = _NONE) -> list[str]:
        """Every key of `requirements` that `compatible` refuses as undefined here, sorted."""
        return sorted(key for key, incoming in requirements.items()
                      if key not in self and key not in allow_undefined and not _excludes_only(incoming))

    def compatible(self, requirements: "Requirements",
                   allow_undefined: frozenset[str] = _NONE) -> KarpenterError | None:
        """Compatible: None, the first undefined custom label (Go: a random one), or Intersects' error;
        `allow_undefined`: keys that may be undefined here."""
        undefined = self.undefined_keys(requirements, allow_undefined)
        if undefined:
            return UndefinedLabelError(undefined[0], self.label_hint(undefined[0], allow_undefined))
        return self.intersects(requirements)

    def is_compatible(self, requirements: "Requirements", allow_undefined: frozenset[str] = _NONE) -> bool:
        """IsCompatible, without building an error text (the scheduler's hot path: inlined)."""
        get = dict.get
        for key, incoming in requirements.items():
            existing = get(self, key)
            if existing is None:
                if key in allow_undefined or bool(incoming.value_set) == incoming.complement:
                    continue
                return False
            if not _has_intersection(existing, incoming) and not (_excludes_only(incoming) and
                                                                  _excludes_only(existing)):
                return False
        return True

    def label_hint(self, key: str, allow_undefined: Iterable[str] = _NONE) -> str:
        """labelHint: an allowed-undefined key, else a key defined here, matching `key`; "" for none
        (the first of `label_hints` where Go picks at random)."""
        hints = self.label_hints(key, allow_undefined)
        return hints[0] if hints else ""

    def label_hints(self, key: str, allow_undefined: Iterable[str] = _NONE) -> list[str]:
        """Every key labelHint could name: the allowed-undefined ones if any match, else the
        defined ones; those whose last segment is the key's own suffix first, then by name."""
        _, sep, after = key.partition("/")
        suffix = after if sep else key
        for candidates in (allow_undefined, self.keys()):
            found = [k for k in candidates if key in k or k.endswith(suffix)]
            if found:
                return sorted(found, key=lambda k: (k.rpartition("/")[2] != suffix, k))
        return []

    def intersects(self, requirements: "Requirements") -> KarpenterError | None:
        """Intersects: None, or one BadKeyError per shared key without a common value (in key
        order; Go's is a map's), combined as multierr does."""
        small, large = (self, requirements) if len(self) <= len(requirements) else (requirements, self)
        errs: BaseException | None = None
        for key in sorted(k for k in small if k in large):
            existing = dict.__getitem__(self, key)
            incoming = dict.__getitem__(requirements, key)
            if not _has_intersection(existing, incoming) and not (_excludes_only(incoming) and
                                                                  _excludes_only(existing)):
                errs = multierr_append(errs, BadKeyError(key, incoming, existing))
        return errs  # type: ignore[return-value]

    def __str__(self) -> str:
        """String(): each requirement but the restricted labels', sorted, joined with `, `."""
        return ", ".join(sorted(str(r) for r in dict.values(self) if r.key not in RESTRICTED_LABELS))


def _excludes_only(r: Requirement) -> bool:
    """Operator NotIn or DoesNotExist: a complement with exclusions, or the empty set."""
    return bool(r.value_set) == r.complement


def _has_intersection(a: Requirement, b: Requirement) -> bool:
    """Requirement.has_intersection, with the common case (two plain sets) inlined."""
    if not a.complement and not b.complement and a.gte is None and a.lte is None and b.gte is None \
            and b.lte is None:
        return not a.value_set.isdisjoint(b.value_set)
    return a.has_intersection(b)


# -- constructors --------------------------------------------------------------------------------
def new_requirements(*requirements: Requirement) -> Requirements:
    r = Requirements()
    r.add(*requirements)
    return r


def new_node_selector_requirements_with_min_values(
        requirements: Iterable[NodeSelectorRequirementWithMinValues]) -> Requirements:
    """NewNodeSelectorRequirementsWithMinValues: from a NodePool's or NodeClaim's requirements."""
    r = Requirements()
    for req in requirements:
        r.add(new_requirement(req.key, req.operator, *req.values, min_values=req.min_values))
    return r


def new_node_selector_requirements(raw: Iterable[Mapping[str, Any]] | None) -> Requirements:
    """NewNodeSelectorRequirements: from core/v1 NodeSelectorRequirements as a pod writes them
    (`matchExpressions` entries: dicts with key, operator, values)."""
    r = Requirements()
    for expr in raw or ():
        r.add(new_requirement(str(expr.get("key") or ""), str(expr.get("operator") or ""),
                              *(str(v) for v in expr.get("values") or ())))
    return r


def new_label_requirements(labels: Mapping[str, str] | None) -> Requirements:
    """NewLabelRequirements: `key In [value]` per label."""
    r = Requirements()
    for key, value in (labels or {}).items():
        r.add(new_requirement(key, IN, str(value)))
    return r


def _spec(pod: "PodInfo | Mapping[str, Any]") -> Mapping[str, Any]:
    spec = getattr(pod, "spec", None)
    if spec is None:
        spec = pod.get("spec") if isinstance(pod, Mapping) else None
    return spec or {}


def _node_affinity(spec: Mapping[str, Any]) -> Mapping[str, Any] | None:
    affinity = spec.get("affinity") or {}
    return affinity.get("nodeAffinity")


def sort_preferred_terms(terms: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The preferred node affinity terms as newPodRequirements sorts them in place: heaviest first,
    Go's `sort.Slice` (not stable beyond 12 terms); relaxation sees this order."""
    out = list(terms)
    go_sort(out, lambda a, b: int(a.get("weight") or 0) > int(b.get("weight") or 0))
    return out


def _pod_requirements(pod: "PodInfo | Mapping[str, Any]", preferred: bool) -> Requirements:
    spec = _spec(pod)
    requirements = new_label_requirements(spec.get("nodeSelector"))
    node_affinity = _node_affinity(spec)
    if node_affinity is None:
        return requirements
    if preferred:
        terms = node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        if terms:
            heaviest = sort_preferred_terms(terms)[0]
            preference = heaviest.get("preference") or {}
            requirements.add(*new_node_selector_requirements(preference.get("matchExpressions")).values())
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is not None:
        terms = required.get("nodeSelectorTerms") or ()
        if terms:
            requirements.add(*new_node_selector_requirements((terms[0] or {}).get("matchExpressions")).values())
    return requirements


def new_pod_requirements(pod: "PodInfo | Mapping[str, Any]") -> Requirements:
    """NewPodRequirements: the node selector, the first required node affinity term (the
    relaxation drops terms one by one) and the heaviest preferred term treated as required."""
    return _pod_requirements(pod, True)


def new_strict_pod_requirements(pod: "PodInfo | Mapping[str, Any]") -> Requirements:
    """NewStrictPodRequirements: the node selector and the first required term only."""
    return _pod_requirements(pod, False)


def has_preferred_node_affinity(pod: "PodInfo | Mapping[str, Any] | None") -> bool:
    """HasPreferredNodeAffinity."""
    if pod is None:
        return False
    node_affinity = _node_affinity(_spec(pod))
    return bool(node_affinity and node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))

