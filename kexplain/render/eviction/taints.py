"""`kexplain evict taints` in words, read only from the document: the node's NoExecute taints
(and the --taint "what if"), then every pod with each taint's tolerating toleration and its
seconds, the decision (now, after N s, never) and when it fires; the tolerations
DefaultTolerationSeconds added; the events."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from rich.console import Console, Group
from rich.text import Text

from kexplain.render.blocks import Block, lines_block, print_blocks
from kexplain.render.cluster_autoscaler import names_table
from kexplain.render.eviction.drain import autoscaler_line
from kexplain.render.style import Look, plural, wrapped

DECISION_WORDS = {"evictNow": "now", "evictAfter": "after {seconds} s", "keep": "never"}


def taint_text(taint: Mapping[str, Any]) -> str:
    """`key=value:effect` (Taint.ToString)."""
    key, value, effect = taint.get("key") or "", taint.get("value") or "", taint.get("effect") or ""
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def matched_text(toleration: Mapping[str, Any]) -> str:
    """What a toleration matches: `key:effect`, `key=value:effect`, `key<N:effect`."""
    key = toleration.get("key") or "every key"
    op = toleration.get("operator") or "Equal"
    matched = {"Exists": key, "Equal": f"{key}={toleration.get('value') or ''}",
               "Lt": f"{key}<{toleration.get('value')}", "Gt": f"{key}>{toleration.get('value')}"}.get(op, f"{key} {op}")
    effect = toleration.get("effect")
    return f"{matched}:{effect}" if effect else f"{matched}, every effect"


def how_long(toleration: Mapping[str, Any]) -> str:
    seconds = toleration.get("tolerationSeconds")
    return "forever" if seconds is None else f"{max(seconds, 0)} s"


def toleration_text(toleration: Mapping[str, Any]) -> str:
    """A toleration in one phrase: what it matches and for how long."""
    return f"{matched_text(toleration)} for {how_long(toleration)}".replace("for forever", "forever")


def decision_text(row: Mapping[str, Any]) -> str:
    return DECISION_WORDS.get(row.get("decision") or "", "?").format(seconds=row.get("afterSeconds"))


def _why_lines(match: Mapping[str, Any], added: Sequence[Mapping[str, Any]]) -> list[str]:
    """One phrase per NoExecute taint (T1, T2, ... as the header numbers them): how long the
    toleration that tolerates it lasts, which toleration when it is a wildcard (no key), `*` when
    DefaultTolerationSeconds added it; or that none does."""
    phrases = []
    for number, item in enumerate(match.get("taints") or (), 1):
        toleration = item.get("toleration")
        if toleration is None:
            phrases.append(f"T{number} not tolerated")
            continue
        wildcard = "" if toleration.get("key") else f" ({matched_text(toleration)})"
        mark = "*" if toleration in added else ""
        phrases.append(f"T{number} {how_long(toleration)}{mark}{wildcard}")
    return ["; ".join(phrases) or "no NoExecute taint"]


def header_blocks(doc: Mapping[str, Any]) -> list[Block]:
    taints = doc.get("noExecuteTaints") or ()
    head = (f"Node {doc.get('node')}: {plural(len(taints), 'NoExecute taint')} "
            f"(the taint eviction controller of Kubernetes {doc.get('kubernetesVersion')}, at {doc.get('now')})")
    blocks = [Block(Text(head, style="bold"), gap=False)]
    what_if = doc.get("whatIf")
    if what_if:
        changes = [f"+ {taint_text(t)}" for t in what_if.get("add") or ()] + \
                  [f"- {taint_text(t) if t.get('effect') else t.get('key') + ' (every effect)'}"
                   for t in what_if.get("remove") or ()]
        blocks.append(Block("What if (--taint, changed as kubectl taint --overwrite changes it):", gap=False))
        blocks.append(lines_block([(1, change) for change in changes], gap=False))
        blocks.append(Block("The node's NoExecute taints then:", gap=False))
    if taints:
        blocks.append(lines_block([(1, f"T{n} {taint_text(t)}") for n, t in enumerate(taints, 1)], gap=False))
    return blocks


def pods_block(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """Every pod: its decision and, per taint, the toleration that answers for it."""
    rows = doc.get("pods") or ()
    if not rows:
        return [Block("No pods are bound to the node.")]
    matches = {m.get("pod"): m for m in doc.get("matches") or ()}
    table_rows = []
    for row in rows:
        match = matches.get(row.get("pod"), {})
        lines = _why_lines(match, row.get("tolerationsAdded") or ())
        if match.get("evictAt"):
            lines.append(f"deleted at {match['evictAt']}")
        table_rows.append((row.get("pod") or "", (decision_text(row),), wrapped("\n".join(lines))))
    title = "Pods (evicted now, after the least tolerationSeconds of the tolerations used, or never)"
    table = names_table(look, title, ("pod", "evicted", "each taint: how long tolerated"), table_rows)
    note = "* the toleration DefaultTolerationSeconds added (below)"
    marked = any("*" in phrase for row in rows for phrase in _why_lines(matches.get(row.get("pod"), {}),
                                                                        row.get("tolerationsAdded") or ()))
    return [Block(table), *([Block(note, gap=False)] if marked else [])]


def added_block(doc: Mapping[str, Any]) -> list[Block]:
    added = [(row.get("pod"), row.get("tolerationsAdded")) for row in doc.get("pods") or () if row.get("tolerationsAdded")]
    if not added:
        return []
    lines = [(0, f"- {pod}: " + ", ".join(toleration_text(t) for t in tolerations)) for pod, tolerations in added]
    return [Block(Text("DefaultTolerationSeconds added on create (pods without their own not-ready / "
                       "unreachable NoExecute toleration)", style="bold")), lines_block(lines, gap=False)]


def summary_block(doc: Mapping[str, Any]) -> list[Block]:
    rows = doc.get("pods") or ()
    now = sum(1 for r in rows if r.get("decision") == "evictNow")
    later = [r.get("afterSeconds") for r in rows if r.get("decision") == "evictAfter"]
    kept = len(rows) - now - len(later)
    text = f"{plural(now + len(later), 'pod')} of {len(rows)} deleted: {now} now"
    if later:
        text += f", {len(later)} after " + (f"{min(later)} s" if min(later) == max(later)
                                           else f"{min(later)} to {max(later)} s")
    return [Block(Text(f"{text}; {kept} never.", style="bold"))]


def events_block(doc: Mapping[str, Any]) -> list[Block]:
    events = doc.get("events") or ()
    if not events:
        return []
    lines = [(0, f"- {e.get('object')}: {e.get('type')} {e.get('reason')}: {e.get('message')}") for e in events]
    return [Block(Text("Events (when each deletion fires)", style="bold")), lines_block(lines, gap=False)]


def where_block(doc: Mapping[str, Any]) -> list[Block]:
    """Each evicted pod's replacement and the scheduler's answer for it, or why there is none."""
    rows = doc.get("whereTheyGo") or ()
    if not rows:
        return []
    lines = []
    for row in rows:
        if row.get("onceGone") is not None:
            lines += waiting_lines(row)
        elif not row.get("replaced"):
            lines.append((0, f"- {row.get('pod')}: not replaced ({row.get('why')})"))
        elif row.get("node"):
            lines.append((0, f"- {row.get('pod')}: {row.get('controller')}'s new pod goes to {row.get('node')}"))
        else:
            lines.append((0, f"- {row.get('pod')}: {row.get('controller')}'s new pod stays pending: "
                             f"{row.get('message') or row.get('status')}"))
            lines += [(2, autoscaler_line(a)) for a in row.get("autoscalers") or ()]
        if row.get("oldPod") and row.get("onceGone") is None:
            lines.append((2, f"{row['oldPod']}"))
    head = ("Where they go (the replacements scheduled one after another, in the queue's order, over the cluster without the "
            "evicted pods; a not-ready / unreachable node also NoSchedule, as the node lifecycle controller taints it)")
    return [Block(Text(head, style="bold")), lines_block(lines, gap=False)]


def waiting_lines(row: Mapping[str, Any]) -> list[tuple[int, str]]:
    """A pod whose owner waits while it stays Terminating: why, where its new pod goes once the old one
    is gone, and the way out."""
    once = row.get("onceGone") or {}
    lines = [(0, f"- {row.get('pod')}: not replaced while it stays Terminating: {row.get('why')}; "
                 f"{row.get('oldPod')}")]
    if once.get("node"):
        lines.append((2, f"once it is gone, the new pod goes to {once['node']}"))
    else:
        lines.append((2, f"once it is gone, the new pod stays pending: {once.get('message') or once.get('status')}"))
        lines += [(4, autoscaler_line(a)) for a in once.get("autoscalers") or ()]
    lines.append((2, "the way out:"))
    lines += [(3, f"- {way}") for way in row.get("wayOut") or ()]
    return lines


LIFECYCLE_KEYS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
CHECKED = {"keep": "checked: kept", "evictNow": "checked: still deleted now",
           "evictAfter": "checked: still deleted later"}


def _change_text(change: Mapping[str, Any]) -> str:
    if "add" in change:
        return f"add the toleration {toleration_text(change['add'])}"
    dropped = change.get("dropSeconds") or {}
    return (f"drop tolerationSeconds {dropped.get('tolerationSeconds')} from its toleration "
            f"{matched_text(dropped)}")


def fixes_block(doc: Mapping[str, Any]) -> list[Block]:
    """Per deleted pod, the toleration changes that keep it, each checked by the pass again."""
    fixes = doc.get("fixes") or ()
    if not fixes:
        return []
    lines = [(0, f"- {fix.get('pod')}: " + "; ".join(_change_text(c) for c in fix.get("changes") or ())
              + f" ({CHECKED.get(fix.get('decisionAfter') or '', '?')})") for fix in fixes]
    blocks = [Block(Text("To keep a pod on the node (its tolerations changed, each checked by the controller's "
                         "pass again)", style="bold")), lines_block(lines, gap=False)]
    forever = any((c.get("add") or c.get("dropSeconds") or {}).get("key") in LIFECYCLE_KEYS
                  for fix in fixes for c in fix.get("changes") or ())
    if forever:
        blocks.append(Block("A pod that tolerates not-ready or unreachable forever stays bound to a dead node "
                            "(what DaemonSets want); a longer tolerationSeconds only delays the deletion.",
                            gap=False))
    return blocks


def render(doc: Mapping[str, Any], look: Look) -> list[Block]:
    return [*header_blocks(doc), *pods_block(doc, look), *added_block(doc), *events_block(doc), *fixes_block(doc),
            *where_block(doc), *summary_block(doc)]


def print_document(doc: Mapping[str, Any], console: Console) -> None:
    """The document as text on `console` (plain when not a terminal)."""
    print_blocks(render(doc, Look(plain=not console.is_terminal, width=console.width)), console)
