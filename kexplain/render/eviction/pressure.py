"""`kexplain evict pressure` in words, read only from its document: every signal against every
threshold and how far it is, the node conditions, the reclaim tried first, the whole ranking with
each pod's keys, the evicted pod and its message, the admission answers, the verified changes."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping

from rich.console import Console
from rich.text import Text

from kexplain.render.blocks import Block, lines_block, print_blocks
from kexplain.render.style import Look

KEY_HEADERS = {"exceedsRequest": "OVER REQ", "priority": "PRIORITY", "usageOverRequest": "USE-REQ",
               "processes": "PROCESSES"}
RECLAIM_WORDS = {"containers": "dead containers deleted", "images": "unused images deleted"}


def _threshold(t: Mapping[str, Any]) -> str:
    if not t.get("operator"):
        return "(none)"
    kind = "hard" if t.get("hard") else f"soft {t.get('gracePeriodSeconds')}s"
    return f"<{t.get('value')} {kind}"


def human(text: Any, signal: str) -> str:
    """A quantity the kubelet prints exactly (`39715553553`), short for the table (`37Gi`); texts
    with a unit already (`100Mi`, `5M`) as they are."""
    raw = str(text)
    digits = raw[1:] if raw.startswith("-") else raw
    if not digits.isdigit() or len(digits) < 7:
        return raw
    n = int(digits)
    binary = signal.startswith(("memory", "allocatable")) or signal.endswith(".available")
    units = (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)) if binary else \
        (("G", 10**9), ("M", 10**6), ("k", 10**3))
    for suffix, size in units:
        if n >= size:
            value = n / size
            shown = f"{value:.1f}".rstrip("0").rstrip(".") if value < 100 else str(round(value))
            return "~" + ("-" if raw.startswith("-") else "") + shown + suffix
    return raw


def summary_line(doc: Mapping[str, Any]) -> str:
    """The answer's first line: the node, its kubelet and layout, its conditions and what it evicts."""
    fs = doc.get("filesystems") or {}
    layout = "split" if fs.get("splitContainerFs") else ("imagefs" if fs.get("dedicatedImageFs") else "shared")
    conditions = ", ".join(doc.get("nodeConditions") or ()) or "no pressure condition"
    evicted = [e.get("pod") for e in doc.get("evicted") or ()]
    verdict = f"evicts {', '.join(evicted)}" if evicted else "evicts nothing"
    return (f"Node {doc.get('node')} (kubelet {doc.get('kubernetesVersion')}, {layout} filesystem) at "
            f"{doc.get('at')}: {conditions}; {verdict}.")


def summary_blocks(doc: Mapping[str, Any]) -> list[Block]:
    return [Block(Text(summary_line(doc), style="bold"), gap=False), *layout_blocks(doc.get("filesystemsFrom"))]


def signal_cells(s: Mapping[str, Any]) -> tuple[str, str, str, str, str, str]:
    """A threshold's row, as the table prints it: the threshold, its grace, and the quantities
    short (`human`), with whether it is met (`no data` when the Summary has no observation)."""
    sg = s["signal"]
    grace = "hard" if s.get("hard") else f"{s.get('gracePeriodSeconds')}s"
    if not s.get("observed"):
        return f"{sg}<{s.get('value')}", grace, "-", "-", "-", "no data"
    return (f"{sg}<{s.get('value')}", grace, human(s.get("quantity"), sg), human(s.get("available"), sg),
            human(s.get("margin"), sg), "MET" if s.get("met") else "no")


SIGNAL_HEADERS = ("THRESHOLD", "GRACE", "QTY", "FREE", "MARGIN", "MET")


LAYOUT_WORDS = {"shared": "one shared filesystem", "imagefs": "a dedicated image filesystem",
                "split": "images on their own filesystem, the containers' writable layers on the node's"}


def layout_words(told: Any) -> str | None:
    """The layout inferred from a Summary, and from what (None: given by --filesystems)."""
    if not isinstance(told, Mapping) or told.get("from") == "--filesystems":
        return None
    layout = str(told.get("layout"))
    return (f"Filesystem layout {layout} ({LAYOUT_WORDS.get(layout, layout)}), inferred from the {told.get('from')} "
            f"as cAdvisor tells the kubelet: {told.get('why')}; --filesystems overrides it.")


def layout_blocks(told: Any) -> list[Block]:
    words = layout_words(told)
    return [Block(Text(words, style="dim"), gap=False)] if words else []


def signals_block(doc: Mapping[str, Any], look: Look) -> list[Block]:
    rows = [s for s in doc.get("signals") or () if s.get("operator")]
    if not rows:
        return []
    table = look.table("Signals against thresholds")
    for header in SIGNAL_HEADERS:
        table.add_column(header, no_wrap=True, justify="left" if header in ("THRESHOLD", "GRACE") else "right")
    for s in rows:
        table.add_row(*signal_cells(s))
    return [Block(table), lines_block([(0, line) for line in signal_notes(doc)], gap=False)]


def signal_notes(doc: Mapping[str, Any]) -> list[str]:
    """What the signals' table says under it: the minimum reclaims, its columns, the transition period."""
    rows = [s for s in doc.get("signals") or () if s.get("operator")]
    period = doc.get("pressureTransitionPeriodSeconds")
    reclaims = sorted({f"{s['signal']} {s['minReclaim']}" for s in rows if s.get("minReclaim")})
    lines = [f"Minimum reclaim (a met threshold stays met until this much more is available): "
             f"{', '.join(reclaims)}."] if reclaims else []
    lines += [f"QTY: the threshold for the observed capacity; FREE: available; MARGIN: FREE - QTY (below 0: "
              f"met; ~: rounded, exact in -o json). "
              f"A condition stays "
              f"{period}s after its threshold is last met (evictionPressureTransitionPeriod)."]
    return lines


def _seconds_between(since: Any, until: Any) -> int | None:
    try:
        a = datetime.fromisoformat(str(since).replace("Z", "+00:00"))
        b = datetime.fromisoformat(str(until).replace("Z", "+00:00"))
    except ValueError:
        return None
    return int((b - a).total_seconds())


def _grace_words(m: Mapping[str, Any], at: Any) -> str:
    if m.get("gracePeriodMet"):
        return "grace period met"
    elapsed = _seconds_between(m.get("firstObservedAt"), at)
    left = f": {int(m.get('gracePeriodSeconds') or 0) - elapsed}s to go" if elapsed is not None else ""
    return f"grace period {m.get('gracePeriodSeconds')}s not yet met{left}"


def _condition_words(doc: Mapping[str, Any]) -> list[str]:
    """Each condition reported; one no threshold raises now is held by the transition period."""
    last = doc.get("conditionsLastObservedAt") or {}
    out = []
    for c in doc.get("nodeConditions") or ():
        seen = last.get(c)
        held = seen and seen != doc.get("at")
        out.append(f"{c} (held by the {doc.get('pressureTransitionPeriodSeconds')}s transition period: "
                   f"last met at {seen})" if held else c)
    return out


def met_lines(doc: Mapping[str, Any]) -> list[str]:
    """Each threshold met, since when and its grace; each whose sample is stale."""
    lines = []
    for m in doc.get("thresholdsMet") or ():
        lines.append(f"{m.get('signal')} {_threshold(m)}: met since {m.get('firstObservedAt')}; "
                     f"{_grace_words(m, doc.get('at'))}")
    for t in doc.get("staleStats") or ():
        lines.append(f"{t.get('signal')} {_threshold(t)}: its sample is not newer than the previous "
                     f"pass's, so the kubelet does not act on it (thresholdsUpdatedStats)")
    return lines


def conditions_line(doc: Mapping[str, Any]) -> str:
    """The node conditions the kubelet reports, each held by the transition period said so."""
    return f"Node conditions reported: {', '.join(_condition_words(doc)) or 'none'}"


def met_block(doc: Mapping[str, Any]) -> list[Block]:
    lines = [(0, f"- {line}") for line in met_lines(doc)]
    if not lines:
        return [Block(f"No threshold is met. {conditions_line(doc)}")]
    return [Block(Text("Thresholds met", style="bold")), lines_block(lines, gap=False),
            lines_block([(0, conditions_line(doc))], gap=False)]


def reclaim_block(doc: Mapping[str, Any]) -> list[Block]:
    if not doc.get("reclaimResource"):
        return []
    how = "hard: evicted at once" if doc.get("reclaimHard") else "soft: the pod's grace period, capped"
    lines = [(0, f"Reclaiming {doc['reclaimResource']} for {doc.get('reclaimSignal')} ({how}).")]
    gc = doc.get("nodeLevelReclaim") or ()
    if gc:
        done = "resolved the pressure" if doc.get("nodeLevelResolved") else "did not resolve the pressure"
        lines.append((0, f"Node-level reclaim first: {', '.join(RECLAIM_WORDS.get(g, g) for g in gc)}; {done}."))
    return [lines_block(lines)]


def key_text(value: Any) -> str:
    """A ranking key in words (no stats, yes, no, the value)."""
    if value is None:
        return "no stats"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value)


def ranking_block(doc: Mapping[str, Any], look: Look) -> list[Block]:
    ranked = doc.get("rankingKeys") or ()
    if not ranked:
        return []
    names = [k["name"] for k in ranked[0].get("keys") or ()]
    evicted = {e.get("pod") for e in doc.get("evicted") or ()}
    skipped = set(doc.get("skippedCritical") or ())
    signal = str(doc.get("reclaimSignal") or "")
    table = look.table("Ranking (first evicted first; keys compared left to right)")
    table.add_column("#", justify="right")
    table.add_column("POD", no_wrap=True)
    for n in names:
        table.add_column(KEY_HEADERS.get(n, n), justify="right", no_wrap=True)
    table.add_column("", overflow="fold")
    for i, r in enumerate(ranked, 1):
        note = "EVICTED" if r["pod"] in evicted else ("critical: skipped" if r["pod"] in skipped else
                                                     ("critical" if r.get("critical") else ""))
        keys = [human(key_text(k.get("value")), signal) if k.get("name") == "usageOverRequest"
                else key_text(k.get("value")) for k in r.get("keys") or ()]
        table.add_row(str(i), r["pod"], *keys, note)
    return [Block(table)]


KEY_WORDS = {"exceedsRequest": "uses more than it requests", "priority": "has the lower priority",
             "usageOverRequest": "uses more above its request", "processes": "runs more processes"}


def why_first_block(doc: Mapping[str, Any]) -> list[Block]:
    """Why the evicted pod is ahead of the next one: the first key that told them apart."""
    ranked = doc.get("rankingKeys") or ()
    evicted = {e.get("pod") for e in doc.get("evicted") or ()}
    for i, r in enumerate(ranked[:-1]):
        if r["pod"] not in evicted:
            continue
        nxt = ranked[i + 1]
        decided = r.get("decidedBy")
        if not decided:
            return []
        words = "has no stats (a pod without stats goes first)" if _key_of(r, decided) is None else \
            KEY_WORDS.get(decided, decided)
        first = (r.get("keys") or [{}])[0].get("name") == decided
        text = (f"{r['pod']} is ahead of {nxt['pod']} because it {words}: {decided} "
                f"{key_text(_key_of(r, decided))} against {key_text(_key_of(nxt, decided))}"
                + ("." if first else "; the keys before it are equal."))
        return [lines_block([(0, text)], gap=False)]
    return []


def _key_of(row: Mapping[str, Any], name: str) -> Any:
    return next((k.get("value") for k in row.get("keys") or () if k.get("name") == name), None)


CAUSE_WORDS = {"emptyDir": "an emptyDir volume over its sizeLimit",
               "podEphemeralStorage": "the pod's ephemeral storage over its containers' limits",
               "containerEphemeralStorage": "a container's ephemeral storage over its limit"}


def evicted_blocks(doc: Mapping[str, Any]) -> list[Block]:
    out = []
    causes = {c.get("pod"): c.get("cause") for c in doc.get("evictionCauses") or ()}
    if doc.get("skippedCritical") and not doc.get("rankingKeys"):
        spared = ", ".join(sorted(set(doc["skippedCritical"])))
        out.append(lines_block([(0, f"Over a local storage limit but critical, not evicted: {spared}.")]))
    for e in doc.get("evicted") or ():
        cause = CAUSE_WORDS.get(str(causes.get(e.get("pod"))))
        if cause:
            out.append(lines_block([(0, f"Local storage limit (checked on every pass, whatever the pressure): "
                                        f"{e.get('pod')} has {cause}.")]))
        out.append(Block(Text(f"Evicted {e.get('pod')} (grace period {e.get('gracePeriodSeconds')}s): "
                              f"status Failed, reason Evicted, message:", style="bold"), gap=not cause))
        out.append(Block(Text(f"  {e.get('message')}"), whole=True, gap=False))
        annotations = e.get("annotations") or {}
        if annotations.get("offending_containers"):
            out.append(Block(Text(f"  Over their request: {annotations['offending_containers']} "
                                  f"(using {annotations.get('offending_containers_usage')})"), gap=False))
    return out


def choices_block(doc: Mapping[str, Any]) -> list[Block]:
    """Several memory thresholds met past grace: the kubelet acts on either (each one's grace
    period and its message's threshold quantity)."""
    choices = doc.get("reclaimChoices") or ()
    if not choices:
        return []
    lines = [(0, "The kubelet may act on either memory threshold met past grace (it ranges over a Go map and "
                 "byEvictionPriority keeps no order between two memory thresholds); above, the first:")]
    for c in choices:
        e = c.get("evicted")
        does = (f"evicts {e.get('pod')} with grace period {e.get('gracePeriodSeconds')}s, message \"Threshold "
                f"quantity: {c.get('quantity')}\"" if e else "evicts nothing")
        lines.append((0, f"- {c.get('signal')} {_threshold(c)}: {does}"))
    pods = {(c.get("evicted") or {}).get("pod") for c in choices}
    if len(pods) == 1 and None not in pods:
        lines.append((0, "The same pod either way; the grace period and the message differ."))
    return [lines_block(lines)]


def admission_block(doc: Mapping[str, Any], look: Look) -> list[Block]:
    answers = doc.get("admission") or ()
    if not answers:
        return []
    why = {w.get("pod"): w.get("why") for w in doc.get("admissionWhy") or ()}
    table = look.table("Pods arriving now (the eviction admit handler)")
    for header in ("POD", "QOS", "ADMIT", "WHY"):
        table.add_column(header, overflow="fold")
    for a in answers:
        table.add_row(a["pod"], a.get("qosClass", ""), "yes" if a.get("admit") else "no",
                      a.get("message") or why.get(a["pod"]) or "")
    return [Block(table)]


def earlier_block(doc: Mapping[str, Any]) -> list[Block]:
    earlier = doc.get("earlier")
    if not earlier:
        return []
    conditions = ", ".join(earlier.get("nodeConditions") or ()) or "no pressure condition"
    evicted = ", ".join(e.get("pod") for e in earlier.get("evicted") or ()) or "nothing"
    met = "; ".join(f"{m.get('signal')} {_threshold(m)}" + ("" if m.get("gracePeriodMet") else " (grace not met)")
                    for m in earlier.get("thresholdsMet") or ()) or "none"
    return [lines_block([(0, f"Earlier pass at {earlier.get('at')}: thresholds met: {met}; {conditions}; "
                             f"evicted {evicted}.")])]


def whatif_block(doc: Mapping[str, Any]) -> list[Block]:
    changes = doc.get("whatIf") or ()
    if not changes:
        return []
    lines = [(0, f"- {c.get('says')}") for c in changes]
    return [Block(Text("Verified changes (each ranked again)", style="bold")), lines_block(lines, gap=False)]


def render(doc: Mapping[str, Any], look: Look) -> list[Block]:
    return [*summary_blocks(doc), *earlier_block(doc), *signals_block(doc, look), *met_block(doc),
            *reclaim_block(doc), *ranking_block(doc, look), *why_first_block(doc), *evicted_blocks(doc),
            *choices_block(doc), *whatif_block(doc), *admission_block(doc, look)]


def print_document(doc: Mapping[str, Any], console: Console) -> None:
    """The document as text on `console` (plain when not a terminal)."""
    look = Look(plain=not console.is_terminal, width=console.width)
    print_blocks(render(doc, look), console)


