"""The ProvisioningRequests of `kexplain kueue` in words, read only from the document's
`workloads[].provisioningRequests`: what Kueue asks per check, what the Cluster Autoscaler
answers, and the check state Kueue writes from it."""
from __future__ import annotations

from typing import Any, Mapping

from rich.text import Text

from kexplain.render.blocks import Block, lines_block
from kexplain.render.style import Look, plural

NO_PROVISIONER = ("no provisioner given (--node-groups): the request has no condition yet and the check stays "
                  "as it is")


def _requests(template: Mapping[str, Any]) -> str:
    spec = (template.get("template") or {}).get("spec") or {}
    parts = []
    for c in spec.get("containers") or ():
        for r, q in ((c.get("resources") or {}).get("requests") or {}).items():
            parts.append(f"{r}={q}")
    return ", ".join(parts)


def _pod_set_lines(asked: Mapping[str, Any]) -> list[tuple[int, str]]:
    templates = {(t.get("metadata") or {}).get("name"): t for t in asked.get("podTemplates") or ()}
    out = []
    for ps in (asked.get("provisioningRequest") or {}).get("spec", {}).get("podSets") or ():
        name = (ps.get("podTemplateRef") or {}).get("name")
        template = templates.get(name) or {}
        selector = ((template.get("template") or {}).get("spec") or {}).get("nodeSelector") or {}
        where = ", node selector " + ", ".join(f"{k}={v}" for k, v in selector.items()) if selector else ""
        out.append((2, f"{plural(int(ps.get('count') or 0), 'pod')} of PodTemplate {name}{where}; each "
                       f"requests {_requests(template) or 'nothing'}"))
    return out


def _answer_lines(answer: Mapping[str, Any]) -> list[tuple[int, str]]:
    if not answer.get("processed"):
        return [(2, f"Cluster Autoscaler: {answer.get('note')}")]
    out = [(2, f"Cluster Autoscaler: {c.get('type')}={c.get('status')} {c.get('reason')}: {c.get('message')}")
           for c in answer.get("conditions") or ()]
    fits = answer.get("fitsOnNodes") or {}
    left = answer.get("fitsNoNode") or []
    total = len(fits) + len(left)
    if fits or left:
        out.append((3, f"{len(fits)} of {plural(total, 'pod')} fit the nodes there are"
                       + (f" ({', '.join(f'{p} on {n}' for p, n in fits.items())})" if fits else "")))
    for s in answer.get("scaleUps") or ():
        out.append((3, f"scale-up: node group {s.get('nodeGroup')} from {s.get('from')} to {s.get('to')} nodes"))
    for o in answer.get("partialOptions") or ():
        out.append((3, f"node group {o.get('nodeGroup')} would take only {o.get('pods')} of the {o.get('of')} pods "
                       f"({plural(int(o.get('nodes') or 0), 'node')}): all or nothing, so none is asked"))
    for pod, groups in (answer.get("podsRejected") or {}).items():
        for group, reasons in groups.items():
            out.append((3, f"{pod}: node group {group}: {'; '.join(reasons)}"))
    return out


def provisioning_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """One paragraph per check's request, Workload by Workload."""
    lines: list[tuple[int, str]] = []
    for w in doc.get("workloads") or ():
        for asked in w.get("provisioningRequests") or ():
            request = asked.get("provisioningRequest") or {}
            meta, spec = request.get("metadata") or {}, request.get("spec") or {}
            lines.append((0, f"- {w.get('namespace')}/{w.get('name')}, check {asked.get('check')} "
                             f"(ProvisioningRequestConfig {asked.get('provisioningRequestConfig')})"))
            params = spec.get("parameters") or {}
            lines.append((1, f"Kueue creates ProvisioningRequest {meta.get('namespace')}/{meta.get('name')}, class "
                             f"{spec.get('provisioningClassName')}"
                             + (", parameters " + ", ".join(f"{k}={v}" for k, v in params.items()) if params else "")))
            lines += _pod_set_lines(asked)
            answer = asked.get("provisioner")
            if answer is None:
                lines.append((1, NO_PROVISIONER))
                continue
            lines += _answer_lines(answer)
            message = f": {asked['checkMessage']}" if asked.get("checkMessage") else ""
            lines.append((1, f"Kueue: check {asked.get('check')} {asked.get('checkStateBefore')} → "
                             f"{asked.get('checkState')}{message}"))
    if not lines:
        return []
    return [Block(Text("ProvisioningRequests", style="bold")), lines_block(lines, gap=False)]
