"""Kueue's answer on the page (`kueue` of a trace or of a placement: `kexplain.kueue.chain`): a
section before the nodes, or once per job Kueue answered for in the overview (a JobSet's Jobs
share one), its sentence and the explanation as the terminal prints it (`render.kueue_chain`)."""
from __future__ import annotations

import io
from typing import Any, Iterable, Mapping

from kexplain.render.consoles import text_console
from kexplain.render.html.markup import Html, el
from kexplain.render.kueue_chain import print_answer, summary

TEXT_WIDTH = 100


def kueue_section(trace: Mapping[str, Any], i: int) -> list[Html]:
    answer = trace.get("kueue")
    if not answer:
        return []
    return [el("h3", "Kueue", id=f"t{i}-kueue"), el("p", summary(answer), cls="note"),
            el("pre", _text(answer), cls="text")]


def _text(answer: Mapping[str, Any]) -> str:
    buf = io.StringIO()
    print_answer(answer, text_console(buf, width=TEXT_WIDTH, force_terminal=False, color_system=None))
    return buf.getvalue().rstrip("\n")


def job_key(answer: Mapping[str, Any]) -> str:
    """The job Kueue answered for (a JobSet's, for each of its Jobs), as the page's anchor."""
    group = answer.get("podGroup")
    if group:       # (a pod group: one answer for its pods)
        return f"PodGroup/{group.get('namespace')}/{group.get('name')}"
    obj = answer.get("object") or {}
    return f"{obj.get('kind')}/{obj.get('namespace')}/{obj.get('name')}"


def job_title(answer: Mapping[str, Any]) -> str:
    """The job Kueue answered for, in words: a pod group (its pods one job), else the object."""
    obj, group = answer.get("object") or {}, answer.get("podGroup")
    if group:
        return f"pod group {group.get('namespace')}/{group.get('name')}"
    return f"{obj.get('kind')} {obj.get('namespace')}/{obj.get('name')}"


def anchor(answer: Mapping[str, Any]) -> str:
    return "kueue-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in job_key(answer))


def jobs_sections(placements: Iterable[Mapping[str, Any]]) -> list[Html]:
    """Kueue's answer once per job it answered for, in full (the first placement's carries the
    explanation; a JobSet's whole answer: every pod set, not one Job's)."""
    answers: dict[str, Mapping[str, Any]] = {}
    for p in placements:
        if p.get("kueue"):
            answers.setdefault(job_key(p["kueue"]), p["kueue"])
    out: list[Html] = []
    for key, answer in answers.items():
        # every pod set; a job the text names (an operator's, a JobSet's: one pod set each placement) still named
        whole = {**answer, "podSet": None} if "podSet" in answer else answer
        out += [el("h3", f"Kueue: {job_title(answer)}", id=anchor(answer)),
                el("pre", _text(whole), cls="text")]
    return out
