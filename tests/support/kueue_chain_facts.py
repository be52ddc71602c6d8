"""The facts of Kueue's chain as each output says them, for the tests that check every output says
the same (tests/cli/test_kueue_ai_chain.py): Kueue's verdict and reason, the topology Kueue assigned,
the scheduler's node for each pod that runs, and the Cluster Autoscaler's answer to the
ProvisioningRequest. The JSON document is the reference (`json_facts`); the text, the page and lint
are read back into the same `Facts` (`text_facts`, `page_facts`, `lint_facts`) and compared whole."""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from kexplain.kueue.objects import checks_words

_BOUND = re.compile(r"Would be bound to ([\w.-]+?)(?=[\s:(])")
_COPY_ROW = re.compile(r"^\s*\d+\s+\S+\s+([\w.-]+)\s*$")
_DOMAIN = re.compile(r"([\w.-]+) \((\d+)\)")
_TOPOLOGY = re.compile(r"topology \(kubernetes\.io/hostname\): ((?:[\w.-]+ \(\d+\)(?:, )?)+)")


@dataclass(frozen=True)
class Facts:
    """What the chain says of one job: Kueue's answer (`verdict`, `workload`, `clusterQueue`, its words
    `said`: the admission sentence), the hostnames TAS assigned with their pod counts (`domains`), the
    node of each pod the scheduler places (`nodes`, sorted) and CA's answer to the request (`autoscaler`)."""

    verdict: str
    workload: str
    cluster_queue: str
    said: str
    domains: tuple[tuple[str, int], ...]
    nodes: tuple[str, ...]
    autoscaler: str


def flat(text: str) -> str:
    return " ".join(text.split())


def sentence(answer: Mapping[str, Any]) -> str:
    """Kueue's verdict in the words every output uses (the text's, lint's `kueue-held` reason)."""
    workload, cq = answer.get("workload"), answer.get("clusterQueue")
    if answer.get("verdict") == "Admitted":
        return f"Workload {workload} is admitted in ClusterQueue {cq}"
    if answer.get("verdict") == "QuotaReserved":
        return (f"Workload {workload} holds quota in ClusterQueue {cq} and waits for its admission checks "
                f"({checks_words(answer.get('admissionChecks'))})")
    return f"Workload {workload} is not admitted"


def _domains(answers: Iterable[Mapping[str, Any]]) -> tuple[tuple[str, int], ...]:
    """Each domain TAS assigned a pod set and its count, as (hostname, pods) pairs."""
    return tuple(sorted({("/".join(d["values"]), d["count"]) for answer in answers for ps in answer.get("podSets") or ()
                         for d in (ps.get("topology") or {}).get("domains") or ()}))


def _ca(answer: Mapping[str, Any]) -> str:
    """CA's Provisioned condition on the answer's ProvisioningRequests ("" when none answered)."""
    out = []
    for asked in answer.get("provisioningRequests") or ():
        for cond in (asked.get("provisioner") or {}).get("conditions") or ():
            if cond.get("type") == "Provisioned":
                out.append(f"Provisioned={cond['status']} {cond['reason']}: {cond['message']}")
    return "; ".join(out)


def json_facts(doc: Mapping[str, Any]) -> Facts:
    """The reference: the placements' Kueue answer (one job: one answer) and the nodes of the traces
    of the pods Kueue started (a held job's template is explained without taking room: no node)."""
    answers = [p["kueue"] for p in doc["placements"]]
    [answer] = list({a["workload"]: a for a in answers}.values())
    nodes: list[str] = []
    if answer["verdict"] == "Admitted":
        nodes = [n for p in doc["placements"] for n, count in (p.get("nodes") or {}).items() for _ in range(count)]
    return Facts(answer["verdict"], answer["workload"], answer["clusterQueue"], sentence(answer),
                 _domains(answers), tuple(sorted(nodes)), _ca(answer))


def _said_in(words: str, answer_facts: Facts) -> Facts:
    """The parts of `answer_facts` whose words appear in `words` (each kept when said, else blanked)."""
    return Facts(answer_facts.verdict if answer_facts.said in words else "",
                 answer_facts.workload if f"Workload {answer_facts.workload} " in words else "",
                 answer_facts.cluster_queue if f"ClusterQueue {answer_facts.cluster_queue}" in words else "",
                 answer_facts.said if answer_facts.said in words else "",
                 (), (), answer_facts.autoscaler if answer_facts.autoscaler and
                 f"Cluster Autoscaler: {answer_facts.autoscaler}" in words else "")


def _text_domains(words: str) -> tuple[tuple[str, int], ...]:
    return tuple(sorted({(host, int(n)) for listed in _TOPOLOGY.findall(words) for host, n in _DOMAIN.findall(listed)}))


def text_facts(text: str, reference: Facts) -> Facts:
    """The facts the text says: Kueue's sentence, the topology lines, and each placement's nodes (a
    Job's copies table, else its pod's "Would be bound to"), only where Kueue admitted the job."""
    words = flat(text)
    said = _said_in(words, reference)
    nodes: list[str] = []
    for section in re.split(r"^=== ", text, flags=re.M)[1:] if reference.verdict == "Admitted" else ():
        lines = section.splitlines()
        if any(line.startswith("Copies, in the order") for line in lines):
            start = next(i for i, line in enumerate(lines) if line.startswith("Copies, in the order"))
            nodes += [m.group(1) for line in lines[start + 2:] if (m := _COPY_ROW.match(line))]
        else:
            nodes += _BOUND.findall(flat(section))[:1]
    return Facts(said.verdict, said.workload, said.cluster_queue, said.said, _text_domains(words),
                 tuple(sorted(nodes)), said.autoscaler)


def page_text(page: str) -> str:
    """The page's words, as a reader sees them (no script, style or markup)."""
    body = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    return flat(html.unescape(re.sub(r"<[^>]+>", " ", body)))


def page_facts(page: str, reference: Facts) -> Facts:
    """The facts the page says: Kueue's section, and the node each explained pod "would be bound to"
    (each pod's explanation is on the page twice: as a view and as the terminal text; a Job's copies
    all on the nodes of its explained ones), as a set against the reference's."""
    words = page_text(page)
    said = _said_in(words, reference)
    nodes = sorted(set(_BOUND.findall(words))) if reference.verdict == "Admitted" else []
    return Facts(said.verdict, said.workload, said.cluster_queue, said.said, _text_domains(words), tuple(nodes),
                 said.autoscaler)


def lint_facts(report: Mapping[str, Any], reference: Facts) -> Facts:
    """The facts lint says of the job's objects: the `kueue` its verdicts carry, the nodes its `fits`
    findings name, and Kueue's sentence (with CA's answer as the check's message) in a held one's."""
    findings = [f for f in report["findings"] if "kueue" in (f.get("details") or {})]
    answers = [f["details"]["kueue"] for f in findings]
    workloads = {a.get("workload") for a in answers}
    verdicts = {a.get("verdict") for a in answers}
    queues = {a.get("clusterQueue") for a in answers}
    if len(workloads) != 1 or len(verdicts) != 1 or len(queues) != 1:
        return Facts(str(sorted(map(str, verdicts))), str(sorted(map(str, workloads))), str(queues), "", (), (), "")
    answer = answers[0]
    words = " ".join(flat(f["message"]) for f in findings)
    held = answer.get("verdict") != "Admitted"
    said_ok = (f"Kueue holds it (Workload {answer['workload']} {answer['verdict']}" in words) if held else \
        all(f["rule"] == "fits" for f in findings)
    nodes = [] if held else [n for f in findings for n in f["details"].get("nodes") or ()]
    reason = sentence(answer) if said_ok else ""
    return Facts(answer["verdict"], answer["workload"], answer["clusterQueue"], reason, _domains(answers),
                 tuple(sorted(nodes)), _ca_in_checks(answer, reference) if reference.autoscaler in words or
                 reference.autoscaler.split(": ", 1)[-1] in words else "")


def live_facts(traces: Iterable[Mapping[str, Any]], reference: Facts) -> Facts:
    """The facts `kexplain pod --pending -o json` says of the pods of a job read live: Kueue's answer
    on the traces, and the node the scheduler binds each pod Kueue starts to in its queue (after the
    pods ahead of it: `queue.result`, else the pod's own)."""
    answers = [t["kueue"] for t in traces]
    [answer] = list({a["workload"]: a for a in answers}.values())
    nodes = [((t.get("queue") or {}).get("result") or t["result"]).get("suggestedHost") for t in traces] \
        if answer["verdict"] == "Admitted" else []
    return Facts(answer["verdict"], answer["workload"], answer["clusterQueue"], sentence(answer), _domains(answers),
                 tuple(sorted(map(str, nodes))), _ca(answer) or _ca_in_checks(answer, reference))


def held_facts(item: Mapping[str, Any], reference: Facts) -> Facts:
    """The facts `kexplain pod -A -o json` says of a Workload the cluster holds with no pod yet
    (`kueueHeld[]`): Kueue's answer now, CA's answer as the message of the check it waits for."""
    answer = item["kueue"]
    return Facts(answer["verdict"], answer["workload"], answer["clusterQueue"], sentence(answer), (), (),
                 _ca(answer) or _ca_in_checks(answer, reference))


def _ca_in_checks(answer: Mapping[str, Any], reference: Facts) -> str:
    """The reference's CA answer when its message is what the answer's checks say (lint, live)."""
    said = checks_words(answer.get("admissionChecks"))
    return reference.autoscaler if reference.autoscaler and reference.autoscaler.split(": ", 1)[1] in said else ""
