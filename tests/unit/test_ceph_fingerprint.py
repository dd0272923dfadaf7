"""The cluster summary from a real fingerprint (lab, 16.2.15), and the connection options."""

from __future__ import annotations

import pytest

from cephbench.ceph import connection as connmod
from cephbench.ceph.fingerprint import summarize
from cephbench.errors import UsageError
from cephbench.lab.connect import resolve
from cephbench.report.cluster import cluster_rows
from tests.helpers import lab_fingerprint


def test_summary_of_the_lab():
    s = summarize(lab_fingerprint(), "recpool")
    assert s["ceph_version"] == "16.2.15 (pacific)"
    assert (s["nodes"], s["osds"], s["osds_by_class"], s["mons"], s["mgrs"]) == (
        1,
        3,
        {"hdd": 3},
        1,
        1,
    )
    assert s["raw_bytes"] == 25769803776 and s["objectstores"] == {"bluestore": 3}
    assert s["pool"]["size"] == 3 and s["pool"]["min_size"] == 2 and s["pool"]["pg_num"] == 32
    assert s["pool"]["failure_domain"] == "osd" and s["pool"]["usable_bytes"] == 25769803776 // 3
    rows = dict(cluster_rows(s))
    assert rows["OSDs"] == "3 (3 hdd)" and rows["Raw capacity"] == "24.0 GiB"
    assert rows["Pool recpool"].startswith("replicated size 3, min_size 2, failure domain osd")


def test_summary_without_the_pool_or_with_failed_commands():
    fp = lab_fingerprint()
    fp["df"] = {"error": "ceph df failed"}
    s = summarize(fp, "no-such-pool")
    assert s["pool"] is None and s["raw_bytes"] is None


def test_connection_defaults_off_the_lab(monkeypatch, tmp_path):
    monkeypatch.setattr("cephbench.lab.info.find_running", lambda *a: None)
    conf = tmp_path / "ceph.conf"
    conf.write_text("[global]\n")
    c = resolve(conf=str(conf), user="client.bench", keyring=None)
    assert c.id == "bench" and c.args() == ["--id", "bench", "--conf", str(conf)]
    assert c.env == {"CEPH_CONF": str(conf)} and c.fio_options() == {"clientname": "bench"}
    with pytest.raises(UsageError, match="no Ceph configuration at /nonexistent"):
        resolve(conf="/nonexistent")
    with pytest.raises(UsageError, match="keyring"):
        resolve(conf=str(conf), keyring=str(tmp_path / "missing"))
    assert connmod.Connection.from_json(c.to_json()) == c
