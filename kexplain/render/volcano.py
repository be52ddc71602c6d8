"""The text of `kexplain volcano`: per PodGroup its phase and condition, per pod where it went or why
not, the queues, the events (read from the document only)."""
from __future__ import annotations

import textwrap
from typing import Any, TextIO

WIDTH = 80
# the queue's quantities in the order they read: its spec, then what the queue plugin made of it
QUEUE_ROWS = (("capability", "capability"), ("guarantee", "guarantee"), ("deserved", "deserved"),
              ("realCapability", "real cap."), ("allocated", "allocated"), ("inqueue", "inqueue"),
              ("request", "request"))


def render(doc: dict[str, Any], out: TextIO) -> None:
    out.write(f"Volcano {doc.get('volcano')}: one scheduling session, actions "
              f"{', '.join(doc['config']['actions'])}\n")
    config = doc.get("config") or {}
    for key, what in (("unknownPlugins", "not a Volcano plugin: skipped, as Volcano skips it"),
                      ("unmodelledPlugins", "Volcano's, not modelled by kexplain yet: skipped")):
        for name in config.get(key) or ():
            out.write(f"plugin {name}: {what}\n")
    for note in doc.get("notes") or ():
        out.write(f"note: {note}\n")
    for pg in doc.get("podGroups") or ():
        out.write(f"\nPodGroup {pg['name']} (queue {pg['queue']}, minMember {pg['minMember']}): "
                  f"{pg['phaseBefore']} -> {pg['phase']}\n")
        for c in pg.get("conditions") or ():
            out.write(f"  {c['type']}={c['status']} {c['reason']}" + (f": {c['message']}" if c.get("message") else "")
                      + "\n")
    out.write("\nPods:\n")
    for pod in doc.get("pods") or ():
        if not pod.get("podGroup"):
            continue
        if pod.get("evicted"):
            out.write(f"  {pod['name']}: evicted (on {pod.get('nodeBefore', '')})\n")
        elif pod.get("boundTo"):
            one_of = pod.get("boundToOneOf")
            where = f"one of {', '.join(one_of)}" if one_of else pod["boundTo"]
            out.write(f"  {pod['name']}: bound to {where}\n")
        elif pod.get("podScheduled"):
            ps = pod["podScheduled"]
            tie = f" (Volcano picks one of {', '.join(pod['nodeOneOf'])})" if pod.get("nodeOneOf") else ""
            out.write(f"  {pod['name']}: {ps['reason']}: {ps['message']}{tie}\n")
        elif pod.get("nodeBefore"):
            out.write(f"  {pod['name']}: on {pod['nodeBefore']}\n")
        else:
            out.write(f"  {pod['name']}: not scheduled this session\n")
    _queues(doc.get("queues") or (), out)
    if doc.get("events"):
        out.write("\nEvents:\n")
        for e in doc["events"]:
            count = f" (x{e['count']})" if e.get("count", 1) > 1 else ""
            out.write(f"  {e['object']}: {e['type']} {e['reason']}: {e['message']}{count}\n")
    render_fixes(doc, out)


def fix_lines(entry: dict[str, Any], pod: str | None = None) -> list[str]:
    """One waiting PodGroup's verified fixes (the document's `fixes` entry), each with what it starts, and
    what preempt and reclaim evicted for it; `pod`: the pod explained, said when a fix leaves it pending."""
    if entry.get("notTried"):
        return [f"PodGroup {entry['podGroup']}: no fix tried: {entry['notTried']}"]
    lines = [f"PodGroup {entry['podGroup']}:"]
    for s in entry.get("suggestions") or ():
        verified = s["verified"]
        bound = ", ".join(f"{p} -> {n if isinstance(n, str) else 'one of ' + ', '.join(n)}"
                          for p, n in verified["podsBound"].items())
        lines.append(f"  {s['kind']}: {s['description']}")
        lines.append(f"    verified: the session run again with it binds {bound}"
                     + (f"; it displaces {', '.join(verified['displaces'])}" if verified.get("displaces") else "")
                     + (f" (the job starts; {pod} itself stays pending)" if pod and pod not in verified["podsBound"]
                        else ""))
    if entry.get("none"):
        lines.append(f"  {entry['none']}")
    for tried in entry.get("triedNotEnough") or ():
        lines.append(f"  tried, does not start it: {tried}")
    if entry.get("evictions"):
        lines.append(f"  {entry['evictions']['says']}")
    return lines


def render_fixes(doc: dict[str, Any], out: TextIO) -> None:
    """The `fixes` section: each waiting PodGroup's verified changes."""
    if not doc.get("fixes"):
        return
    out.write("\nFixes (each verified by running the session again with it):\n")
    for entry in doc["fixes"]:
        for line in fix_lines(entry):
            out.write(f"  {line}\n")


def _wrap(text: str, indent: str, hang: str) -> str:
    """`text` filled to 80 columns; a no-break space (\\xa0) holds two words on one line."""
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=hang,
                         break_on_hyphens=False, break_long_words=False).replace("\xa0", " ") + "\n"


def _resources(rl: dict[str, str]) -> str:
    return ", ".join(f"{k}\xa0{v}" for k, v in rl.items()) or "-"


def _queue(q: dict[str, Any], out: TextIO) -> None:
    """One queue: its head line, a row per quantity, its share, the jobs that wait on it."""
    head = [q["state"]] + [f"{k} {q[k]}" for k in ("parent", "weight", "priority") if q.get(k) not in (None, "")]
    out.write(f"  {q['name']} ({', '.join(head)})" + (f" [{q['plugin']}]" if q.get("plugin") else "") + "\n")
    for key, label in QUEUE_ROWS:
        if q.get(key) is not None:
            out.write(_wrap(_resources(q[key]), f"    {label:<11} ", " " * 16))
    if "share" in q:
        note = ("  (no deserved: best effort, after the queues below theirs)" if q.get("bestEffort")
                else "  (overused)" if q.get("overused") else "")
        out.write(f"    {'share':<11} {q['share']:.2f}{note}\n")
    shares = [f"{j['podGroup']}\xa0{j['drfShare']:.2f}" for j in q.get("jobs") or () if "drfShare" in j]
    if shares:
        out.write(_wrap(", ".join(shares), f"    {'drf share':<11} ", " " * 16))
    for w in q.get("waiting") or ():
        out.write(_wrap(f"{w['podGroup']} waits on {w['plugin']}, not on nodes: {w['reason']}", "    ", " " * 6))


def _queues(queues: Any, out: TextIO) -> None:
    out.write("\nQueues:\n")
    for q in queues:
        _queue(q, out)
