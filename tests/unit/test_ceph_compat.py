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
