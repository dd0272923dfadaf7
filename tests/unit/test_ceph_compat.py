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
