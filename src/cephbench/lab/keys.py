"""cephx keys and keyring files, made in Python (what ``ceph-authtool --gen-key`` writes)."""

from __future__ import annotations

import base64
import os
import struct
import time

CEPH_CRYPTO_AES = 1
CEPH_CRYPTO_AES256KRB5 = 2
"""Tentacle's default key type (``AgA...``): a Pacific client cannot parse it."""
_SECRET_BYTES = {CEPH_CRYPTO_AES: 16, CEPH_CRYPTO_AES256KRB5: 32}

ADMIN_CAPS = {"mds": "allow *", "mgr": "allow *", "mon": "allow *", "osd": "allow *"}
MGR_CAPS = {"mds": "allow *", "mon": "allow profile mgr", "osd": "allow *"}
OSD_CAPS = {"mgr": "allow profile osd", "mon": "allow profile osd", "osd": "allow *"}
MON_CAPS = {"mon": "allow *"}


def gen_key(
    now: float | None = None, secret: bytes | None = None, kind: int = CEPH_CRYPTO_AES
) -> str:
    """A new cephx secret: its type, creation time, random bytes (16 for AES, 32 for
    AES256KRB5), base64 encoded."""
    now = time.time() if now is None else now
    secret = os.urandom(_SECRET_BYTES[kind]) if secret is None else secret
    sec, nsec = int(now), int((now % 1) * 1e9)
    raw = struct.pack("<HIIH", kind, sec, nsec, len(secret)) + secret
    return base64.b64encode(raw).decode()


def render_keyring(entries: dict[str, tuple[str, dict[str, str]]]) -> str:
    """Keyring text for ``{entity: (key, {service: caps})}``."""
    lines = []
    for entity, (key, caps) in entries.items():
        lines.append(f"[{entity}]")
        lines.append(f"\tkey = {key}")
        lines.extend(f'\tcaps {svc} = "{cap}"' for svc, cap in sorted(caps.items()))
    return "\n".join(lines) + "\n"
