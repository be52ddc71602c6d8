"""The Jobs section of `kexplain volcano` (the document's `jobs`, made by `kexplain.app.volcano_jobs`):
per Volcano Job the webhook's refusal, or its PodGroup's verdict, then its tasks and their pods, where
each went or why not (read from the document only)."""
from __future__ import annotations

from typing import Any, Mapping, TextIO


def _pod(pod: Mapping[str, Any]) -> str:
    if pod.get("notCreated"):
        return f"not created, the API server refuses it: {pod['notCreated']}"
    if pod.get("boundTo"):
        one_of = pod.get("boundToOneOf")
        return f"bound to one of {', '.join(one_of)}" if one_of else f"bound to {pod['boundTo']}"
    if pod.get("nodeBefore"):
        return f"on {pod['nodeBefore']}"
    if pod.get("podScheduled"):
        ps = pod["podScheduled"]
        return f"{ps.get('reason')}: {ps.get('message')}"
    return "not scheduled this session"


def _task(task: Mapping[str, Any], out: TextIO) -> None:
    least = f", minAvailable {task['minAvailable']}" if "minAvailable" in task else ""
    out.write(f"  task {task['name']} ({task['replicas']} replica{'s' if task['replicas'] != 1 else ''}{least})\n")
    for pod in task.get("pods") or ():
        out.write(f"    {pod['name']}: {_pod(pod)}\n")
    if task.get("podNames"):
        out.write(f"    pods not created yet: {', '.join(n.split('/', 1)[1] for n in task['podNames'])}\n")


def _job(job: Mapping[str, Any], out: TextIO) -> None:
    out.write(f"\nJob {job['name']} (queue {job['queue']}, minAvailable {job['minAvailable']})")
    if job.get("refused"):
        out.write(f": refused by Volcano's admission webhook: {job['refused']}\n")
        return
    if job.get("waiting"):
        out.write(f": the job controller stops before its PodGroup: {job['waiting']}\n")
    elif job.get("phase"):
        out.write(f": PodGroup {job['podGroup']} {job['phaseBefore']} -> {job['phase']}\n")
    else:
        out.write("\n")
    if job.get("skipped"):
        out.write(f"  Volcano leaves its PodGroup out of the session: {job['skipped']}\n")
    if job.get("verdict"):
        out.write(f"  {job['verdict']}\n")
    for event in job.get("events") or ():
        out.write(f"  event {event}\n")
    if job.get("podsCreated") is False:
        out.write("  its pods are not created: Volcano's job controller creates them once the PodGroup is "
                  "Inqueue (enqueue admits it)\n")
    for task in job.get("tasks") or ():
        _task(task, out)
    for note in job.get("unmodelled") or ():
        out.write(f"  not modelled: {note}\n")


def render_jobs(doc: Mapping[str, Any], out: TextIO) -> None:
    """The Jobs, before the session's PodGroups (nothing without Jobs)."""
    jobs = doc.get("jobs") or ()
    if not jobs:
        return
    out.write(f"Volcano Jobs ({len(jobs)}), as Volcano's webhooks and job controller make them:\n")
    for job in jobs:
        _job(job, out)
    out.write("\n")
