"""The scheduler's fixes for a pod of a job Kueue answers for (`kexplain.kueue.chain`).

Kueue holds the job (its Workload not admitted): no pod exists, and its template is explained
without the flavor Kueue assigns when it admits it, which brings the flavor's node labels and
tolerations: the template's own fixes are moot, and Kueue's verified fixes (`kexplain kueue`'s,
`kueue_fixes`, carried by Kueue's answer) are the ones offered. Kueue started the job (a Job's
pods, or a plain Pod it ungated): an edit of a nodeSelector entry a flavor put there (removed, or
its value replaced) is an edit of that ResourceFlavor's `nodeLabels` (Kueue copies them into the
pods it starts; the pod has no entry of its own, and one edited would come back). Light: Kueue's pass is
imported only when fixes are sought for a pass already run."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

from kexplain.suggest.change import Op, pointer
from kexplain.suggest.verify import Suggestion

PODSET_LABEL = "kueue.x-k8s.io/podset"          # the pod set of a pod Kueue started (podset.infos)
SELECTOR = "/spec/nodeSelector/"
Answer = Mapping[str, Any]
AnswerFor = Callable[[Mapping[str, Any]], "Answer | None"]
Suggester = Callable[..., list[Any]]


def held(answer: Answer | None) -> bool:
    """Kueue holds the job: its Workload not admitted, or admitted but not startable."""
    return bool(answer) and (answer.get("verdict") != "Admitted" or bool(answer.get("startError")))  # type: ignore[union-attr]


def kueue_fixes(done: Any, doc: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Kueue's verified fixes for the Workloads the pass `done` left pending (its document `doc`),
    by Workload (`NAMESPACE/NAME`)."""
    from kexplain.suggest.kueue import needed, suggestions
    if not needed(doc):
        return {}
    out: dict[str, list[dict[str, Any]]] = {}
    waiting: list[dict[str, Any]] = []          # (`verified.waitsBehind`: others would take the room)
    for s in [*suggestions(done, waiting=waiting), *waiting]:
        out.setdefault(str(s["workload"]), []).append(s)
    return out


def with_kueue(suggester: Suggester, answer_for: AnswerFor) -> Suggester:
    """`suggester` for pods of jobs Kueue answers for: none for a held job's template, a flavor's
    nodeSelector entry edited in its ResourceFlavor; other pods as `suggester` says."""
    def run(inputs: Any, trace: Any, options: Any) -> list[Any]:
        answer = answer_for(inputs.pod.obj)
        if answer is None:
            return suggester(inputs, trace, options)
        if held(answer):
            return []
        injected = flavor_selector(answer, inputs.pod.obj)
        return [in_flavor(s, injected) for s in suggester(inputs, trace, options)]
    return run


def flavor_selector(answer: Answer, pod: Mapping[str, Any]) -> dict[str, tuple[str, list[str]]]:
    """The nodeSelector entries Kueue put in the pod (its pod set's), key -> (value, flavors)."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    name = labels.get(PODSET_LABEL) if isinstance(labels, Mapping) else None
    for ps in answer.get("podSets") or ():
        if ps.get("name") == name:
            return {str(k): (str(v), [str(f) for f in ps.get("flavors") or ()])
                    for k, v in (ps.get("nodeSelector") or {}).items()}
    return {}


def in_flavor(s: Suggestion, injected: Mapping[str, tuple[str, list[str]]]) -> Suggestion:
    """The suggestion with each edit of an injected nodeSelector entry made the same edit of the
    flavor's node label (removed, or its value replaced), its words saying so; unchanged when it
    edits none. The pod's copy is Kueue's: it has no entry of its own to edit."""
    moved = _moved(s.change, s.description, s.target, injected)
    if moved is None:
        return s
    change, words, target = moved
    return replace(s, target=target, description=words, change=tuple(change))


def in_flavor_json(s: Mapping[str, Any], injected: Mapping[str, tuple[str, list[str]]]) -> dict[str, Any]:
    """`in_flavor` for a suggestion as its document has it (the autoscalers' add theirs so: a node
    group's template selected by the pod's nodeSelector)."""
    moved = _moved(s.get("change") or (), str(s.get("description") or ""), str(s.get("target") or ""), injected)
    if moved is None:
        return dict(s)
    change, words, target = moved
    return {**s, "target": target, "description": words, "change": change}


def flavor_fixes(found: list[dict[str, Any]], answer: Answer | None, pod: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A started pod's suggestions (documents) with its flavor's nodeSelector entries edited in the
    ResourceFlavor; as they are for a pod Kueue does not answer for, or holds."""
    if answer is None or held(answer):
        return found
    injected = flavor_selector(answer, pod)
    return [in_flavor_json(s, injected) for s in found] if injected else found


def _moved(ops: Any, words: str, target: str, injected: Mapping[str, tuple[str, list[str]]]
           ) -> tuple[list[Op], str, str] | None:
    """The operations with those on injected entries moved to the flavors, the words and the target
    saying so; None when none is."""
    if not injected:
        return None
    change: list[Op] = []
    flavors: list[str] = []
    why = "(Kueue copies its nodeLabels into the nodeSelector of the pods it starts)"
    for op in ops:
        key = _selector_key(op)
        if key is None or key not in injected or op["op"] not in ("remove", "replace"):
            change.append(op)
            continue
        value, names = injected[key]
        flavor = names[0] if len(names) == 1 else " or ".join(names)
        flavors += names
        path = pointer("spec", "nodeLabels", key)
        if op["op"] == "remove":
            change += [{"op": "remove", "object": {"kind": "ResourceFlavor", "name": n}, "path": path} for n in names]
            words = words.replace(f"remove the nodeSelector entry {key}={value}",
                                  f"remove the node label {key}={value} from ResourceFlavor {flavor} {why}")
            continue
        change += [{"op": "replace", "object": {"kind": "ResourceFlavor", "name": n}, "path": path,
                    "value": op.get("value")} for n in names]
        said = f"{key}={op.get('value')} instead of {value}"
        where = f", set in ResourceFlavor {flavor}'s nodeLabels {why}"
        words = words.replace(said, said + where) if said in words else f"{words} ({said}{where})"
    if not flavors:
        return None
    only_flavor = all(op["object"].get("kind") == "ResourceFlavor" for op in change)
    return change, words, (f"ResourceFlavor {' and '.join(dict.fromkeys(flavors))}" if only_flavor else target)


def _selector_key(op: Op) -> str | None:
    path = str(op.get("path") or "")
    if op.get("object", {}).get("kind") != "Pod" or not path.startswith(SELECTOR):
        return None
    return path[len(SELECTOR):].replace("~1", "/").replace("~0", "~")
