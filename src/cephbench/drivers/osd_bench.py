"""``ceph tell osd.N bench``: argv builder and pure parsers (its JSON, ``ceph osd metadata``)."""

from __future__ import annotations

import json
from typing import Any

from ..errors import ParseError
from ..model import Result

DEFAULT_BYTES = 1 << 30   # Ceph's own defaults: 1 GiB in 4 MiB writes
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
        written, seconds = int(data["bytes_written"]), float(data["elapsed_sec"])
    except (ValueError, KeyError, TypeError) as e:
        raise ParseError(f"ceph tell osd.{osd} bench printed no bench result: {text.strip()[:200]!r}") from e
    bs = int(data.get("blocksize") or 0) or None
    return Result(
        workload=f"osd.{osd}", repeat=repeat, op="write", rw="write", bs=bs, iodepth=1, numjobs=1,
        runtime_s=seconds, iops=float(data["iops"]) if "iops" in data else None,
        bw_bytes_per_s=float(data["bytes_per_sec"]), io_bytes=written,
        total_ios=written // bs if bs else None,
    )


def osd_info(metadata: list[dict[str, Any]], tree: dict) -> dict[str, dict[str, Any]]:
    """OSD id (as text) -> host, device class, device model, rotational, objectstore."""
    classes = {n["id"]: n.get("device_class") for n in tree.get("nodes", []) if n.get("type") == "osd"}
    out = {}
    for m in metadata:
        osd = int(m["id"])
        out[str(osd)] = {
            "host": m.get("hostname"),
            "device_class": classes.get(osd) or m.get("default_device_class"),
            "model": m.get("bluestore_bdev_model") or m.get("device_ids") or m.get("devices") or None,
            "rotational": m.get("rotational") == "1" if "rotational" in m else None,
            "objectstore": m.get("osd_objectstore"),
        }
    return out
