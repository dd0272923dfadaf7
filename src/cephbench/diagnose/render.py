"""A diagnosis as people read it: findings first (sorted by impact), then what was checked,
then the latency budget; as rich tables, Markdown, or the JSON document.

In a terminal narrower than :data:`NARROW` columns the findings are no table: seven columns
wrapped one word a line made one finding fifteen lines tall at 80 columns. Each is a short
block instead, as compilers print diagnostics (:func:`finding_blocks`), and the budget's
cells keep their figures, its overlaps said in its notes."""

from __future__ import annotations

import textwrap
from typing import Any

from cephbench.tables.table import Table

NARROW = 120
"""Below this many columns a terminal gets the findings as blocks, not as a table."""

COMPARED = {
    "device": "device_ms",
    "osd": "queued_ms",
}

UNITS = (
    ("_ms", "ms"),
    ("_us", "µs"),
    ("_iops", "IOPS"),
    ("_mbit_per_s", "Mbit/s"),
    ("_per_s", "/s"),
    ("_bytes", "B"),
    ("_cores", "cores"),
)
"""A figure's unit from its name's ending."""

WORDS: dict[str, str] = {
    "device_ms": "device wait",
    "queued_ms": "queued",
    "write_queued_ms": "writes queued",
    "subop_w_ms": "replica writes",
    "qd1_write_queued_ms": "QD1 writes queued",
    "qd1_subop_w_ms": "QD1 replica writes",
    "bench_4k_iops": "osd bench 4k",
    "read_4k_iops": "own 4k reads",
    "osd_perf_commit_ms": "commit",
    "cpu_peak_cores": "CPU used at most",
    "cpu_limit_cores": "CPU limit",
    "bench_4k_throttled_ms": "throttled in its own 4k bench",
}


def _value(key: str, v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        v = f"{v:,.2f}" if abs(v) < 100 else f"{v:,.0f}"
    for end, unit in UNITS:
        if key.endswith(end):
            return f"{v} {unit}"
    return str(v)


def _flat(ev: Any, key: str = "") -> list[str]:
    """Evidence as "name value unit" phrases."""
    if isinstance(ev, dict):
        out = []
        for name, v in ev.items():
            k = str(name)
            if isinstance(v, dict | list):
                inner = _flat(v, k)
                if inner:
                    out.append(f"{WORDS.get(k, k).replace('_', ' ')}: " + ", ".join(inner))
            else:
                unit_key = k if any(k.endswith(e) for e, _ in UNITS) else key
                out.append(f"{WORDS.get(k, k).replace('_', ' ')} {_value(unit_key, v)}")
        return out
    if isinstance(ev, list):
        return [
            _value(key, v) if not isinstance(v, dict | list) else "; ".join(_flat(v)) for v in ev
        ]
    return [_value(key, ev)]


def digest(f: dict[str, Any], limit: int = 240) -> str:
    """The evidence as a short text with units: the figure compared and its peers'."""
    ev = f.get("evidence", {})
    if "figures" in ev and "peers" in ev:
        compared = ev.get("compared", "")
        keys = list(compared) if isinstance(compared, dict) else []
        if not keys:
            key = COMPARED.get(f["layer"], "device_ms")
            if "osd bench" in str(compared):
                key = "bench_4k_iops"
            elif "subop" in str(compared) or "replica" in str(compared):
                key = "subop_w_ms"
            keys = [key]
        parts = []
        for key in keys[:2]:
            own = _value(key, ev["figures"].get(key))
            peers = ", ".join(f"{p} {_value(key, v.get(key))}" for p, v in ev["peers"].items())
            parts.append(f"{WORDS.get(key, key)}: {f['component']} {own}; peers {peers}")
        return "; ".join(parts)
    if "mbit_per_s" in ev:
        own = ", ".join(f"{p} {v} Mbit/s" for p, v in ev["mbit_per_s"].items())
        text = own
        peers = ev.get("peers_mbit_per_s")
        if peers:
            text += "; others " + ", ".join(f"{p} {v} Mbit/s" for p, v in peers.items())
        if ev.get("nominal_mbit_per_s"):
            text += f"; nominal {ev['nominal_mbit_per_s']} Mbit/s"
        return text
    text = "; ".join(_flat(ev))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def title(doc: dict[str, Any]) -> str:
    return f"Diagnosis of run {doc['run']}: {len(doc['findings'])} finding(s)"


NO_FINDING = "No finding: every check below was normal."


def finding_blocks(doc: dict[str, Any], width: int) -> str:
    """The findings as blocks of at most ``width`` columns, one per finding: its number,
    component, layer and severity, then what was found, the evidence and the next step, each
    wrapped under its first line (as compilers print a diagnostic and its notes)."""
    lines = [title(doc), ""]
    for i, f in enumerate(doc["findings"], 1):
        head = f"{i}. {f['component']} [{f['layer']}]: {f['severity']}: "
        lines += _wrap(head + f["summary"], width, " " * len(f"{i}. "))
        indent = " " * len(f"{i}. ")
        for label, text in (("evidence", digest(f)), ("next step", f["next_step"])):
            lines += _wrap(f"{indent}{label}: {text}", width, indent + "  ")
        lines.append("")
    if not doc["findings"]:
        lines += [NO_FINDING, ""]
    return "\n".join(lines)


def _wrap(text: str, width: int, indent: str) -> list[str]:
    """``text`` in lines of at most ``width`` columns, each after the first indented."""
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)


def tables(
    doc: dict[str, Any], evidence: dict[str, Any] | None = None, *, narrow: bool = False
) -> list[Table]:
    """Findings first, then the latency budget, the ceilings the capabilities imply (with
    ``evidence``, or the document's own ``ceilings``), what was checked. ``narrow``: no
    findings table (:func:`finding_blocks` says them) and the budget's cells figures alone."""
    findings = doc["findings"]
    rows = tuple(
        (
            str(i),
            f["severity"],
            f["layer"],
            f["component"],
            f["summary"],
            digest(f),
            f["next_step"],
        )
        for i, f in enumerate(findings, 1)
    )
    out = [
        Table(
            ("#", "Severity", "Layer", "Component", "Finding", "Evidence", "Next step"),
            rows,
            title=title(doc),
            notes=() if findings else (NO_FINDING,),
            align=("r", "l", "l", "l", "l", "l", "l"),
        ),
    ]
    if narrow:
        out = []
    out += budget_tables(doc.get("budget") or {}, narrow=narrow)
    ceilings = doc.get("ceilings")
    if ceilings is None and evidence:
        from cephbench.diagnose.explain import diagnosis_ceilings

        ceilings = diagnosis_ceilings(evidence)
    if ceilings:
        from cephbench.diagnose.explain import capability_tables, ceilings_table

        out.append(ceilings_table(ceilings))
        out += capability_tables(ceilings["capabilities"])
    out.append(
        Table(
            ("Layer", "Check", "Status", "Detail"),
            tuple(
                (c["layer"], c["check"], c["status"], c.get("detail", "")) for c in doc["checked"]
            ),
            title="Checked",
            align=("l", "l", "l", "l"),
        )
    )
    return out


def budget_tables(b: dict[str, Any], narrow: bool = False) -> list[Table]:
    """The latency budget; ``narrow``: a part that overlaps others says "overlaps" alone in
    its cell, its figure and why in the notes below the table (as the wide table's too)."""
    if b.get("parts"):
        notes = [
            "From the OSDs' counters over the QD1 writes alone (op_w_latency, "
            "op_w_process_latency, BlueStore commit_lat) and dump_historic_ops."
        ]
        notes += b.get("notes", [])
        return [
            Table(
                ("Part", "ms", "Share"),
                tuple(
                    (
                        p["part"],
                        _ms(p, narrow),
                        "n/a" if p["share"] is None else f"{p['share'] * 100:.0f} %",
                    )
                    for p in b["parts"]
                ),
                title=f"Latency budget of a 4k write at QD1: {b['client_ms']:.3f} ms at the client",
                notes=tuple(notes),
            )
        ]
    if b.get("note"):
        return [Table(("Latency budget",), ((b["note"],),), align=("l",))]
    return []


def _ms(p: dict[str, Any], narrow: bool = False) -> str:
    note = p.get("note")
    if note and narrow:  # "overlaps (-7.272 ms left): why": its words before the figure
        note = note.split(" (", 1)[0].split(":", 1)[0]
    if p["ms"] is None:
        return note or "n/a"
    text = f"{p['ms']:.3f}"
    return f"{text} ({note})" if note else text


def changes_table(base: int, new: int, changes: dict[str, list[dict[str, Any]]]) -> Table:
    rows = []
    for what, label in (("appeared", "appeared"), ("went_away", "went away"), ("stayed", "stayed")):
        for f in changes[what]:
            rows.append((label, f["severity"], f["layer"], f["component"], f["summary"]))
    return Table(
        ("Change", "Severity", "Layer", "Component", "Finding"),
        tuple(rows),
        title=f"Findings of run {new} against run {base}",
        notes=() if rows else ("Neither diagnosis has a finding.",),
        align=("l", "l", "l", "l", "l"),
    )
