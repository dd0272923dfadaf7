"""Reading a keyring's key type (``ceph/compat.py``): Tentacle's new type is told apart from
the AES keys every release reads, on a key Tentacle 20.2.4's ceph-authtool printed and on the
lab's own keys."""

from __future__ import annotations

from cephbench.ceph import compat
from cephbench.lab import keys

TENTACLE_KEY = "AgD4BQtrH8pAEyAAHsFkQJ8OziXkLCr8lYWbDyYpEsElXose6ht4o6G+gAk="


def test_key_types():
    assert compat.key_type(TENTACLE_KEY) == 2
    assert compat.key_type(keys.gen_key()) == 1
    assert compat.key_type(keys.gen_key(kind=keys.CEPH_CRYPTO_AES256KRB5)) == 2
    assert len(keys.gen_key(kind=keys.CEPH_CRYPTO_AES256KRB5)) == len(TENTACLE_KEY)
    assert compat.key_type("not base64!") is None and compat.key_type("AQA=") is None


def test_the_key_of_one_entity_in_a_keyring():
    text = (
        '[client.admin]\n\tkey = AQAAAA==\n\tcaps mon = "allow *"\n'
        f"[client.bench]\n    key = {TENTACLE_KEY}\n"
    )
    assert compat.keyring_key(text, "client.bench") == TENTACLE_KEY
    assert compat.keyring_key(text, "client.admin") == "AQAAAA=="
    assert compat.keyring_key(text, "client.other") is None


def test_one_reading_of_ceph_version_for_every_release():
    from cephbench.ceph.tools import ClientVersion, parse_version

    # as Debian 12's 16.2.15 and Tentacle 20.2.4's root printed it
    assert parse_version(
        "ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)\n"
    ) == ClientVersion("16.2.15", 16, "pacific")
    assert parse_version(
        "ceph version 20.2.4 (7f793731f1b39eb4f465e960113d2363c311b964) tentacle "
        "(stable - RelWithDebInfo)"
    ) == ClientVersion("20.2.4", 20, "tentacle")
    assert parse_version("command not found") is None


def _dump(release: str, name: str) -> dict:
    import json
    from pathlib import Path

    return json.loads((Path(__file__).parents[1] / "data/ceph" / release / name).read_text())


def test_the_features_an_osd_map_needs_of_its_clients():
    """On recorded maps (tests/data/ceph/*/osd-dump*.json): only features in use count, not
    what the admins require of clients."""
    assert compat.features_needed(_dump("16.2.15", "osd-dump.json")) == (10, "jewel", "features")
    assert compat.features_needed(_dump("18.2.7", "osd-dump.json"))[1] == "jewel"
    require = _dump("18.2.7", "osd-dump-require-reef.json")
    assert require["require_min_compat_client"] == "reef"
    assert compat.features_needed(require)[1] == "jewel"
    upmap = _dump("18.2.7", "osd-dump-upmap-primary.json")
    assert compat.features_needed(upmap) == (18, "reef", "1 pg-upmap-primary mapping(s)")
    assert compat.features_needed({"min_compat_client": "firefly"}) is None
    assert compat.features_needed({}) is None


def test_a_pacific_client_is_refused_a_map_with_reef_features_only():
    from cephbench.ceph.tools import ClientVersion

    pacific = ClientVersion("16.2.15", 16, "pacific")
    for name in ("osd-dump.json", "osd-dump-require-reef.json"):
        assert compat.cannot_read(_dump("18.2.7", name), pacific, "fio") is None
    refused = compat.cannot_read(_dump("18.2.7", "osd-dump-upmap-primary.json"), pacific, "fio")
    assert refused is not None
    assert refused.message == (
        "this machine's Ceph libraries (fio's rbd and rados engines) are 16.2.15 (Pacific), and "
        "the cluster's OSD map uses 1 pg-upmap-primary mapping(s) that only Reef 18 and newer "
        "clients read (min_compat_client reef): its I/O to those PGs would hang"
    )
    assert "install Reef's librbd1 and librados2 here" in (refused.hint or "")
    fuse = compat.cannot_read(_dump("18.2.7", "osd-dump-upmap-primary.json"), pacific, "ceph-fuse")
    assert fuse is not None and "this machine's ceph-fuse is 16.2.15" in fuse.message
    bench = compat.cannot_read(_dump("18.2.7", "osd-dump-upmap-primary.json"), pacific, "rados")
    assert bench is not None and "this machine's rados (rados bench) is 16.2.15" in bench.message
    assert "--ceph-cli" in (bench.hint or "")
    reef = ClientVersion("18.2.7", 18, "reef")
    assert compat.cannot_read(_dump("18.2.7", "osd-dump-upmap-primary.json"), reef, "fio") is None
