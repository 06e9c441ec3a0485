"""The JSON rendering of placement conflicts, for tools (schema: `SCHEMA_PATH`, conflict_schema.json here).

The document is plain data (dicts, lists, strings, ints, None) so that
``json.dumps`` writes it as is.  `docs/conflicts.md` describes every field;
`SCHEMA_ID` names the version, bumped on any incompatible change.

A conflict's ``path`` holds the steps a person is shown (a long chain's
first and last `chain.KEEP` and its landmarks, each run of steps left out
summed up in ``elided``), each in full; ``chain`` holds every step,
compactly: per step its sites, line and rule as runs of arithmetic
progressions, so a regular chain of 200,000 steps takes a few hundred bytes
and any chain is encoded in linear time.  Each fix carries its ``edits``
(`edits.report_edits`): the text edits that make it, none where it cannot be
written as text.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vdplace.ir.span import Span
from vdplace.placement.diagnose.chain import Gap
from vdplace.placement.diagnose.conflict import Conflict, Device, Fix, Requirement, Step
from vdplace.placement.diagnose.names import device_name, site_name
from vdplace.placement.diagnose.summary import conflict_summary
from vdplace.placement.model.constraints import Site
from vdplace.placement.report.common import Report, shown_steps
from vdplace.placement.report.edits import Edit, report_edits

SCHEMA_ID = "vdplace-conflicts/3"
SCHEMA_PATH = Path(__file__).with_name("conflict_schema.json")


def json_report(report: Report) -> dict[str, Any]:
    """The document: the module's vdevices, the counts, and every explained conflict."""
    vdevices = report.vdevices
    edits = report_edits(report.conflicts, report.lines)
    return {
        "schema": SCHEMA_ID,
        "file": report.filename,
        "vdevices": [
            {
                "index": i,
                "name": device_name(vdevices, i),
                "target": v.target.as_dict(),
                "vdevice_id": v.vdevice_id,
                "memory_scope": v.memory_scope,
            }
            for i, v in enumerate(vdevices)
        ],
        "total": report.total,
        "omitted": report.omitted,
        "conflicts": [_conflict(report, c, edits) for c in report.conflicts],
    }


def _conflict(report: Report, conflict: Conflict, edits: dict[int, list[Edit]]) -> dict[str, Any]:
    shown = shown_steps(conflict)
    gaps: list[dict[str, Any]] = []
    before = 0
    for step in shown:
        if isinstance(step, Gap):
            gaps.append(_elided(before, step))
        else:
            before += 1
    return {
        "number": conflict.number,
        "title": conflict.title,
        "summary": conflict_summary(conflict),
        "verified": conflict.verified,
        "shape": "path" if conflict.is_path else "tree",
        "span": _span(report, conflict.span),
        "pins": [_requirement(report, r) for r in conflict.pins],
        "path": [_step(report, s) for s in shown if not isinstance(s, Gap)],
        "elided": gaps,
        "chain": _chain(conflict.path),
        "fixes": [_fix(report, f, edits.get(id(f), [])) for f in conflict.fixes],
    }


def _span(report: Report, span: Span | None) -> dict[str, Any] | None:
    if span is None:
        return None
    return {
        "file": span.file or report.filename,
        "line": span.line,
        "column": span.col,
        "end_line": span.end_line,
        "end_column": span.end_col,
    }


def _site(report: Report, site: Site) -> dict[str, Any]:
    return {
        "id": site.id,
        "function": site.func,
        "name": site.name,
        "leaf": list(site.path),
        "kind": site.kind,
        "label": site_name(site),
        "span": _span(report, site.span),
    }


def _device(device: Device) -> dict[str, Any]:
    return {"index": device.index, "name": device.name}


def _requirement(report: Report, req: Requirement) -> dict[str, Any]:
    return {
        "kind": req.kind,
        "rule": req.rule.text,
        "rule_kind": req.rule.kind.value,
        "description": req.description,
        "variable": req.variable,
        "function": req.function,
        "site": _site(report, req.site),
        "span": _span(report, req.span),
        "device": None if req.device is None else _device(req.device),
        "devices": [_device(d) for d in req.devices],
    }


def _step(report: Report, step: Step) -> dict[str, Any]:
    return {
        "rule": step.rule.text,
        "rule_kind": step.rule.kind.value,
        "text": step.text,
        "from": _site(report, step.source),
        "to": _site(report, step.target),
        "binding": step.binding,
        "span": _span(report, step.span),
    }


def _elided(after: int, gap: Gap) -> dict[str, Any]:
    return {
        "after": after,
        "steps": gap.steps,
        "bindings": gap.bindings,
        "first_line": gap.first_line,
        "last_line": gap.last_line,
        "text": str(gap),
    }


def _chain(steps: list[Step]) -> dict[str, Any]:
    """Every step of the chain (in chain order; a tree's in any order) as runs: see docs/conflicts.md."""
    rules: dict[tuple[str, str], int] = {}
    for step in steps:
        rules.setdefault((step.rule.kind.value, step.rule.text), len(rules))
    return {
        "steps": len(steps),
        "rules": [{"rule_kind": kind, "rule": text} for kind, text in rules],
        "rule": runs(rules[(s.rule.kind.value, s.rule.text)] for s in steps),
        "from": runs(s.source.id for s in steps),
        "to": runs(s.target.id for s in steps),
        "line": runs(None if s.span is None else s.span.line for s in steps),
    }


def runs(values: Iterable[int | None]) -> list[list[int | None]]:
    """`values` as runs ``[first, count, stride]`` (first, first + stride, ...); nulls as ``[None, count, 0]``.

    Greedy and linear: a run grows while the next value continues its
    progression (its second value fixes the stride).
    """
    out: list[list[Any]] = []
    for v in values:
        if out:
            run = out[-1]
            first, count, stride = run
            if first is None or v is None:
                if first is None and v is None:
                    run[1] = count + 1
                    continue
            elif count == 1:
                run[1], run[2] = 2, v - first
                continue
            elif v == first + count * stride:
                run[1] = count + 1
                continue
        out.append([v, 1, 0])
    return out


def _fix(report: Report, fix: Fix, edits: list[Edit]) -> dict[str, Any]:
    return {
        "kind": fix.kind,
        "message": fix.message,
        "line": fix.line,
        "span": _span(report, fix.span),
        "resolves": list(fix.resolves),
        "edits": [_edit(report, e) for e in edits],
    }


def _edit(report: Report, edit: Edit) -> dict[str, Any]:
    (line, column), (end_line, end_column) = edit.start, edit.end
    span = {"file": report.filename, "line": line, "column": column, "end_line": end_line, "end_column": end_column}
    return {"span": span, "text": edit.text}
