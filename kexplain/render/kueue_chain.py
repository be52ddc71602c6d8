"""Kueue's answer before the scheduler's, in words (`kueue` of a trace or of a batch's
placement: `kexplain.kueue.chain`): whether Kueue admitted the job's Workload, in which
ClusterQueue and with what in its pods (the flavors' node selector and tolerations), or why not
(Kueue's message and the explanation `kexplain kueue` gives: `render.kueue.why_blocks`)."""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.text import Text

from kexplain.kueue.objects import checks_words
from kexplain.render.blocks import Block, print_blocks
from kexplain.render.kueue import lines_block, suggestions_blocks, waiting_blocks, why_blocks
from kexplain.render.kueue_provisioning import provisioning_blocks
from kexplain.render.style import Look

PROVREQ_ANNOTATIONS = "autoscaling.x-k8s.io/"      # a ProvisioningRequest check's PodSetUpdate annotations
HELD = {"Job": "the Job stays suspended (no pod is created)",
        "Pod": "the Pod keeps its scheduling gate",
        "JobSet": "the JobSet stays suspended (its Jobs create no pod)",
        "StatefulSet": "its pods keep their scheduling gate (held together)"}
STARTED = {"Job": "the Job is unsuspended", "Pod": "the Pod is ungated", "JobSet": "the JobSet is unsuspended",
           "StatefulSet": "the StatefulSet is started (its pods ungated together)"}
# The operators' kinds (`kexplain.kueue.operator_pods`): held suspended, their operator creating no pod
_OPERATORS = {"RayJob": "KubeRay creates no RayCluster", "RayCluster": "KubeRay creates no pod",
              **{k: "the training operator creates no pod" for k in ("PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob",
                                                                     "JAXJob")},
              "MPIJob": "the MPI operator creates no pod", "AppWrapper": "its controller creates no component",
              "RayService": "its RayCluster creates no pod", "TrainJob": "the trainer's JobSet stays suspended"}
HELD |= {k: f"the {k} stays suspended ({why})" for k, why in _OPERATORS.items()}
HELD["LeaderWorkerSet"] = "its group's pods keep their scheduling gate (held together)"
STARTED |= {k: f"the {k} is unsuspended" for k in _OPERATORS}
STARTED["LeaderWorkerSet"] = "its group's pods are ungated together"


def _toleration(t: Mapping[str, Any]) -> str:
    text = str(t.get("key") or "")
    if t.get("operator") == "Exists":
        text += " (Exists)" if text else "every taint (Exists)"
    elif t.get("value"):
        text += f"={t['value']}"
    return text + (f":{t['effect']}" if t.get("effect") else "")


def pod_set_lines(answer: Mapping[str, Any]) -> list[tuple[int, str]]:
    """Per pod set: its count, flavors, and the node selector and tolerations Kueue adds."""
    lines = []
    for ps in answer.get("podSets") or ():
        if answer.get("podSet") and ps.get("name") != answer["podSet"]:      # a JobSet's Job: its own
            continue
        flavors = ", ".join(ps.get("flavors") or ()) or "none"
        lines.append((1, f"Pod set {ps.get('name')}: {ps.get('count')} pod{'s' if ps.get('count') != 1 else ''}, "
                         f"flavor {flavors}"))
        selector = ps.get("nodeSelector") or {}
        if selector:
            lines.append((2, "nodeSelector " + ", ".join(f"{k}={v}" for k, v in selector.items())))
        if ps.get("tolerations"):
            lines.append((2, "tolerations " + ", ".join(_toleration(t) for t in ps["tolerations"])))
        provisioned = {k: v for k, v in (ps.get("annotations") or {}).items() if k.startswith(PROVREQ_ANNOTATIONS)}
        if provisioned:
            lines.append((2, "annotations " + ", ".join(f"{k}={v}" for k, v in provisioned.items())
                             + " (the ProvisioningRequest check's)"))
        topology = ps.get("topology") or {}
        if topology.get("domains"):
            where = ", ".join(f"{'/'.join(d['values'])} ({d['count']})" for d in topology["domains"])
            lines.append((2, f"topology ({', '.join(topology.get('levels') or ())}): {where}"))
    return lines


def ungated_lines(answer: Mapping[str, Any]) -> list[tuple[int, str]]:
    """A live pod still gated by TAS: the domain Kueue's topology ungater gives it (`topologyUngated`)."""
    given = answer.get("topologyUngated")
    if not given:
        return []
    how = f"by its rank ({given['indexLabel']})" if given.get("by") == "rank" and given.get("indexLabel") \
        else "in order (greedily)"
    where = ", ".join(f"{k}={v}" for k, v in (given.get("nodeSelector") or {}).items())
    return [(1, f"Kueue's topology ungater gives this pod domain {where} {how}; explained ungated there "
                "(the cluster's pod is still gated)")]


def reserved_lines(answer: Mapping[str, Any]) -> list[tuple[int, str]]:
    """Per pod set of a job waiting for its checks: the flavors its quota is reserved on, and what
    Kueue sets in its pods once they pass (`reservedPodSets`: node selector, tolerations, topology)."""
    sets = {str(ps.get("name")): ps for ps in answer.get("reservedPodSets") or ()}
    lines = []
    for name, flavors in (answer.get("reservedFlavors") or {}).items():
        if not flavors:
            continue
        lines.append((1, f"Pod set {name}: quota reserved on flavor {', '.join(sorted(set(flavors.values())))}"))
        lines += [line for line in pod_set_lines({"podSets": [sets[name]]})[1:] if line[1].startswith(
            ("nodeSelector", "tolerations", "topology"))] if name in sets else []
    return lines


def reserved_template(answer: Mapping[str, Any]) -> str:
    """How a held job's pod template is explained while its quota is reserved: on the reserved
    flavors' nodes (what Kueue sets when its checks pass merged in, the job not started), or
    without them when Kueue could not merge them (`reservedError`)."""
    if answer.get("reservedPodSets"):
        return ("explained on the reserved flavors' nodes (their node labels and tolerations merged in, as "
                "Kueue sets them when its checks pass; not started)")
    if answer.get("reservedError"):
        return ("explained without the reserved flavors' node labels and tolerations (Kueue could not set them "
                f"when its checks pass: {answer['reservedError']})")
    return "explained without the reserved flavors' node labels and tolerations"


def template_words(answer: Mapping[str, Any]) -> str:
    """How the pod template of a job Kueue holds is explained: with its quota reserved, as
    `reserved_template` says; else without a flavor (Kueue assigns one when it admits it)."""
    return reserved_template(answer) if answer.get("verdict") == "QuotaReserved" else "explained without a flavor"


def live_lines(answer: Mapping[str, Any]) -> list[tuple[int, str]]:
    """The cluster's own Workload (`live`: read from the API server), beside what kexplain computes."""
    live = answer.get("live")
    if not live:
        return []
    lines = [(0, f"In the cluster, Workload {live.get('workload')} (as stored):")]
    admission = live.get("admission") or {}
    if admission.get("clusterQueue"):
        lines.append((1, f"admission: ClusterQueue {admission['clusterQueue']}"))
    for cond in live.get("conditions") or ():
        lines.append((1, f"{cond.get('type')} {cond.get('status')} ({cond.get('reason')})"
                         + (f": {cond['message']}" if cond.get("message") else "")))
    for check in live.get("admissionChecks") or ():
        lines.append((1, f"admission check {check.get('name')}: {check.get('state')}"
                         + (f": {check['message']}" if check.get("message") else "")))
    for pod_set, topology in (live.get("topologyDomains") or {}).items():
        domains = ", ".join(f"{'/'.join(d.get('values') or ())} ({d.get('count')})"
                            for d in topology.get("domains") or ())
        lines.append((1, f"pod set {pod_set}: topology {', '.join(topology.get('levels') or ())}: "
                         f"{domains or 'no domain'}"))
    if live.get("requeueState"):
        state = live["requeueState"]
        lines.append((1, f"requeue state: count {state.get('count')}"
                         + (f", requeue at {state['requeueAt']}" if state.get("requeueAt") else "")))
    disagreement = _disagreement(answer, live)
    if disagreement:
        lines.append((0, disagreement))
    return lines


def _disagreement(answer: Mapping[str, Any], live: Mapping[str, Any]) -> str:
    """kexplain's verdict against the stored QuotaReserved condition, when they differ."""
    stored = next((c for c in live.get("conditions") or () if c.get("type") == "QuotaReserved"), None)
    if stored is None or stored.get("status") not in ("True", "False"):
        return ""
    admitted = answer.get("verdict") == "Admitted"
    if admitted == (stored.get("status") == "True"):
        return ""
    ours = (f"kexplain's pass admits it in ClusterQueue {answer.get('clusterQueue')}" if admitted
            else "kexplain's pass does not admit it")
    return (f"Disagreement: {ours}, but the cluster's Workload has QuotaReserved={stored.get('status')} "
            f"({stored.get('reason')}): Kueue's inputs changed since it last decided, or kexplain reads "
            "them differently")


def answer_blocks(answer: Mapping[str, Any], look: Look) -> list[Block]:
    """The answer's blocks, its ProvisioningRequests and the cluster's own Workload (when read live) after them."""
    blocks = _answer_blocks(answer, look)
    if answer.get("provisioningRequests") and answer.get("verdict") in ("Admitted", "QuotaReserved"):
        namespace, _, name = str(answer.get("workload") or "").partition("/")
        blocks += provisioning_blocks({"workloads": [{"namespace": namespace, "name": name,
                                                      "provisioningRequests": answer["provisioningRequests"]}]}, look)
    if answer.get("configurationNote"):         # what of Kueue's Configuration the pass does not model
        blocks.append(Block(Text(f"  Note: {answer['configurationNote']}"), whole=True, gap=False))
    lines = live_lines(answer)
    return blocks + [lines_block(lines)] if lines else blocks


def _held(kind: str) -> str:
    """What holding the Workload does to its job, after "; " (nothing for a Workload whose job is
    not named, one the cluster stores alone: no dangling separator)."""
    return f"; {HELD[kind]}" if kind in HELD else ""


def _answer_blocks(answer: Mapping[str, Any], look: Look) -> list[Block]:
    obj = answer.get("object") or {}
    kind = str(obj.get("kind"))
    what = f"{kind} {obj.get('namespace')}/{obj.get('name')}" if obj else "its job"
    version = str(answer.get("kueueVersion") or "").split(" (")[0]
    group = answer.get("podGroup") or {}
    whose = f"pod group {group.get('name')}, {what}" if group else what
    queue = answer.get("queueName")     # (none: managed under manageJobsWithoutQueueName)
    head = f"Kueue {version}, " + (f"LocalQueue {queue}" if queue else "no queue name") \
        + (f" ({whose})" if "podSet" in answer or group else "") + ": "     # (an operator's, a JobSet's: named)
    verdict = answer.get("verdict")
    if verdict == "NotCreated":
        target = (f"pod group {group.get('namespace')}/{group.get('name')} ({len(group.get('pods') or ())} pod(s), "
                  f"total count {group.get('totalCount') or 'not set'})") if group else what
        held = "" if answer.get("unmanaged") else _held(kind)     # (unmanaged: it runs as written)
        return [Block(Text(head + f"no Workload for {target}: {answer.get('error')}{held}", style="bold"), gap=False)]
    workload = answer.get("workload")
    if verdict == "Admitted":
        if answer.get("startError"):
            text = (f"Workload {workload} is admitted in ClusterQueue {answer.get('clusterQueue')}, but Kueue cannot "
                    f"start {what}: {answer['startError']}{_held(kind)}")
            return [Block(Text(head + text, style="bold"), gap=False)]
        text = (f"Workload {workload} is admitted in ClusterQueue {answer.get('clusterQueue')}; "
                f"{STARTED.get(kind, '')}, " + ("as Kueue sets it:" if kind == "Pod" else "its pods as Kueue sets them:"))
        return [Block(Text(head + text, style="bold"), gap=False),
                lines_block(pod_set_lines(answer) + ungated_lines(answer), gap=False)]
    if verdict == "QuotaReserved":
        checks = checks_words(answer.get("admissionChecks"))
        text = (f"Workload {workload} holds quota in ClusterQueue {answer.get('clusterQueue')} and waits for its "
                f"admission checks ({checks or 'none synced yet'}){_held(kind)}")
        reserved = reserved_lines(answer)
        out = [Block(Text(head + text, style="bold"), gap=False)]
        if reserved:
            out.append(lines_block(reserved, gap=False))
        if reserved and kind != "Pod":
            out.append(Block(Text(f"Its pod template, {reserved_template(answer)}:")))
        return out
    out = [Block(Text(head + f"Workload {workload} is not admitted{_held(kind)}", style="bold"), gap=False)]
    if answer.get("explanation"):
        out += why_blocks({"explanation": {"workloads": [answer["explanation"]]}}, look)
    elif answer.get("message"):
        out.append(Block(Text(f"  Kueue: {answer['message']}"), whole=True, gap=False))
    if "suggestions" in answer:
        found = answer["suggestions"]
        waits = [f for f in found if not (f.get("verified") or {}).get("admits")]
        out += suggestions_blocks({"suggestions": [f for f in found if f not in waits]}, look)
        out += waiting_blocks({"suggestionsWaiting": waits}, look)
    if kind == "Pod" or not obj:        # (a Workload stored alone, `kueue.chain.Held`: no template follows)
        return out
    return out + [Block(Text("Its pod template, explained without a flavor (Kueue assigns one when it admits it)"
                             + (", without fixes of its own: that flavor's node labels and tolerations would change "
                                "them" if "suggestions" in answer else "") + ":"))]


def summary(answer: Mapping[str, Any]) -> str:
    """The answer in one sentence (the page's note under an object): for an admitted job, what
    Kueue sets in its pods too."""
    blocks = answer_blocks({**answer, "explanation": None, "live": None}, Look(plain=True, width=10_000))
    text = blocks[0].renderable
    out = text.plain if isinstance(text, Text) else str(text)
    lines = pod_set_lines(answer) if answer.get("verdict") == "Admitted" and not answer.get("startError") else []
    return out.rstrip(":") + ": " + "; ".join(line for _, line in lines) if lines else out


def held(answer: Mapping[str, Any] | None) -> bool:
    """Kueue holds the job: its Workload not admitted, or admitted but not startable."""
    return bool(answer) and (answer.get("verdict") != "Admitted" or bool(answer.get("startError")))


def print_answer(answer: Mapping[str, Any], console: Console) -> None:
    print_blocks(answer_blocks(answer, Look(plain=not console.is_terminal, width=console.width)), console)
