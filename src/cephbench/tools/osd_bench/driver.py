"""``ceph tell osd.N bench``: argv builder and pure parsers (its JSON, ``ceph osd metadata``)."""

from __future__ import annotations

import json
import math
from typing import Any

from cephbench.errors import ParseError
from cephbench.model import Result

DEFAULT_BYTES = 1 << 30  # Ceph's own defaults: 1 GiB in 4 MiB writes
DEFAULT_BS = 4 << 20


def argv(osd: int, total_bytes: int = DEFAULT_BYTES, bs: int = DEFAULT_BS) -> list[str]:
    """Arguments after ``ceph`` for one OSD."""
    return ["tell", f"osd.{osd}", "bench", str(total_bytes), str(bs), "-f", "json"]


def up_osds(dump: dict) -> list[int]:
    """Ids of the OSDs that are up, from ``ceph osd dump -f json``."""
    return sorted(o["osd"] for o in dump.get("osds", []) if o.get("up"))


def parse(text: str, osd: int, repeat: int = 0) -> Result:
    """One OSD's bench JSON as a result row: workload ``osd.N``, a write."""
    try:
        data = json.loads(text)
        return from_data(data, f"osd.{osd}", repeat)
    except (ValueError, RecursionError, ParseError) as e:
        raise ParseError(
            f"ceph tell osd.{osd} bench printed no bench result: {text.strip()[:200]!r}"
        ) from e


def from_data(data: Any, name: str, repeat: int = 0) -> Result:
    """One OSD's bench figures, as its JSON decoded, as a result row: a write.

    Releases before Mimic print no ``elapsed_sec`` and no ``iops`` (and Firefly prints
    ``bytes_per_sec`` as a string): the run time is then None, and IOPS is derived as
    ``bytes_per_sec / blocksize`` (what later releases print) and flagged ``iops_derived``.
    Crimson nests the figures in ``osd_bench_results``.
    """
    if isinstance(data, dict) and isinstance(data.get("osd_bench_results"), dict):
        data = data["osd_bench_results"]
    if not isinstance(data, dict) or "bytes_written" not in data or "bytes_per_sec" not in data:
        raise ParseError(f"{name}: no bytes_written and bytes_per_sec in {str(data)[:200]!r}")
    written, rate = int(_number(data, "bytes_written")), _number(data, "bytes_per_sec")
    bs = int(_number(data, "blocksize")) if data.get("blocksize") else None
    iops = _number(data, "iops") if "iops" in data else None
    flags: tuple[str, ...] = ()
    if iops is None and bs:
        iops, flags = rate / bs, ("iops_derived",)
    return Result(
        workload=name,
        repeat=repeat,
        op="write",
        rw="write",
        bs=bs or None,
        iodepth=1,
        numjobs=1,
        runtime_s=_number(data, "elapsed_sec") if "elapsed_sec" in data else None,
        iops=iops,
        bw_bytes_per_s=rate,
        io_bytes=written,
        total_ios=written // bs if bs else None,
        flags=flags,
    )


def _number(data: dict, key: str) -> float:
    value = data[key]
    try:
        number = (
            float(value)
            if isinstance(value, int | float | str) and not isinstance(value, bool)
            else math.nan
        )
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number < 0:
        raise ParseError(f"{key} is not a figure: {value!r}")
    return number


def osd_info(metadata: list[dict[str, Any]], tree: dict) -> dict[str, dict[str, Any]]:
    """OSD id (as text) -> host, device class, device model, rotational, objectstore."""
    classes = {
        n["id"]: n.get("device_class") for n in tree.get("nodes", []) if n.get("type") == "osd"
    }
    out = {}
    for m in metadata:
        osd = int(m["id"])
        out[str(osd)] = {
            "host": m.get("hostname"),
            "device_class": classes.get(osd) or m.get("default_device_class"),
            "model": m.get("bluestore_bdev_model")
            or m.get("device_ids")
            or m.get("devices")
            or None,
            "rotational": m.get("rotational") == "1" if "rotational" in m else None,
            "objectstore": m.get("osd_objectstore"),
        }
    return out
