"""The CA cases' comparison rules (../shared/autoscaler/README.md), once, for the tests.

Both documents are projected onto what is compared: `autoscaler.source`, `autoscaler.kubernetes`,
`warnings` and `orderSensitive` dropped; keys left out when empty read as empty; pods of one
equivalence class compared as a multiset of their records (without names); every list of pod
names compared as the multiset of its pods' classes (names mapped through the expected
document); scale-down utilization ratios rounded to 1e-6. `differences` names the top-level
keys (and `pods`, `nodeGroups`, `expansion` sub-keys) whose projections differ.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

POD_KEYS = ("outcome", "filteredBy", "events", "nodeGroups", "rejected", "skipped")
OMITTED = {"filteredBy": "", "events": [], "nodeGroups": {}, "rejected": {}, "skipped": {}}


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True)


def _classes(doc: dict) -> dict[str, int]:
    return {f"{p['namespace']}/{p['name']}": p.get("equivalenceClass") for p in doc.get("pods") or ()}


def _pod_list(names: Any, classes: dict[str, int]) -> list:
    return sorted((classes.get(n, n) for n in names or ()), key=str)


def _event(e: dict) -> dict:
    out = {k: e.get(k) for k in ("type", "reason", "message")}
    out["messageParts"] = e.get("messageParts") or []
    return out


def _verdict(v: dict) -> dict:
    return {"verdict": v.get("verdict"), "predicate": v.get("predicate") or "", "reasons": v.get("reasons") or []}


def _pods(doc: dict) -> dict:
    by_class: dict[str, list[str]] = {}
    for p in doc.get("pods") or ():
        record = {k: p.get(k) if p.get(k) is not None else OMITTED.get(k) for k in POD_KEYS}
        record["events"] = [_event(e) for e in record["events"] or []]
        record["nodeGroups"] = {g: _verdict(v) for g, v in (record["nodeGroups"] or {}).items()}
        by_class.setdefault(str(p.get("equivalenceClass")), []).append(_canon(record))
    return {c: sorted(r) for c, r in by_class.items()}


def _option(o: Any, classes: dict[str, int]) -> Any:
    if not isinstance(o, dict):
        return o
    return {"nodeGroup": o.get("nodeGroup"), "nodeCount": o.get("nodeCount"),
            "pods": _pod_list(o.get("pods"), classes), "similarNodeGroups": o.get("similarNodeGroups") or []}


# A template's keys the cases define; kexplain's own (`member`) are not compared, as the shared tool does not.
TEMPLATE_KEYS = ("source", "labels", "allocatable", "pods")


def _template(t: Any) -> Any:
    if not isinstance(t, dict):
        return t
    taints = [{"key": x.get("key"), "value": x.get("value") or "", "effect": x.get("effect"),
               "timeAdded": x.get("timeAdded") or ""} for x in t.get("taints") or ()]
    return {**{k: t.get(k) for k in TEMPLATE_KEYS}, "taints": taints}


def project(doc: dict, classes: dict[str, int]) -> dict[str, Any]:
    """The compared view of `doc`, key by key."""
    auto = {k: v for k, v in (doc.get("autoscaler") or {}).items() if k not in ("source", "kubernetes")}
    out: dict[str, Any] = {k: doc.get(k) for k in ("apiVersion", "kind", "result", "scaleUpCalled")}
    out["autoscaler"] = auto
    out["error"] = doc.get("error") or ""
    out["loopError"] = doc.get("loopError") or ""
    out["pods.classes"] = {f"{p['namespace']}/{p['name']}": p.get("equivalenceClass") for p in doc.get("pods") or ()}
    out["pods"] = _pods(doc)
    for g in doc.get("nodeGroups") or ():
        out[f"nodeGroups.{g.get('name')}"] = {**g, "template": _template(g.get("template")),
                                               "option": _option(g.get("option"), classes)}
    out["nodeGroups.name"] = [g.get("name") for g in doc.get("nodeGroups") or ()]
    exp = doc.get("expansion")
    if isinstance(exp, dict):
        out["expansion"] = {"options": [_option(o, classes) for o in exp.get("options") or ()],
                            "bestOption": _option(exp.get("bestOption"), classes),
                            "scaleUps": exp.get("scaleUps") or [],
                            "podsTriggeredScaleUp": _pod_list(exp.get("podsTriggeredScaleUp"), classes),
                            "podsAwaitEvaluation": _pod_list(exp.get("podsAwaitEvaluation"), classes)}
    else:
        out["expansion"] = exp
    out["clusterEvents"] = doc.get("clusterEvents") or []
    if "scaleDown" in doc:
        out["scaleDown"] = json.loads(json.dumps(doc["scaleDown"]), parse_float=lambda s: round(float(s), 6))
    return out


def differences(want: dict, got: dict) -> list[str]:
    """The compared keys whose values differ."""
    classes = _classes(want)
    a, b = project(want, classes), project(got, classes)
    return [k for k in sorted(set(a) | set(b)) if _canon(a.get(k)) != _canon(b.get(k))]


def case_inputs(case: Path) -> list[str]:
    """The `kexplain autoscale` arguments of a case folder (its inputs alone), `-o json`."""
    args = ["autoscale"]
    if (case / "pods.yaml").exists():
        args.append(str(case / "pods.yaml"))
    args += ["--nodes", str(case / "cluster.yaml"), "--node-groups", str(case / "nodegroups.yaml")]
    if (case / "params.yaml").exists():
        args += ["--autoscaler-config", str(case / "params.yaml")]
    return args + ["-o", "json"]
