"""Which PG an object of a pool belongs to, computed as Ceph computes it, so cephbench can name
objects that land where it wants them (a load of each OSD's own: objects whose primary it
is) without asking the monitors once per name (``ceph osd map``, half a second each).

An object's name is hashed with Ceph's default object hash (``rjenkins``: Bob Jenkins'
lookup2 hash over the name's bytes, as Ceph's ``ceph_str_hash_rjenkins``) into a raw
placement seed; the PG is that seed folded into the pool's ``pg_num`` by Ceph's stable mod
(``ceph_stable_mod``: the low bits under the next power of two, folded once more when they
reach past ``pg_num``). Checked against the monitors' own ``ceph osd map`` answers
(``tests/data/ceph/*/osd-map.txt``). Pure.
"""

from __future__ import annotations

from collections.abc import Iterator

_M = 0xFFFFFFFF
GOLDEN = 0x9E3779B9


def _mix(a: int, b: int, c: int) -> tuple[int, int, int]:
    """lookup2's mix: three rounds, each shifting a and c right and b left."""
    for sa, sb, sc in ((13, 8, 13), (12, 16, 5), (3, 10, 15)):
        a = ((a - b - c) & _M) ^ (c >> sa)
        b = ((b - c - a) & _M) ^ ((a << sb) & _M)
        c = ((c - a - b) & _M) ^ (b >> sc)
    return a, b, c


def _word(k: bytes, i: int) -> int:
    return k[i] | k[i + 1] << 8 | k[i + 2] << 16 | k[i + 3] << 24


def rjenkins(name: str | bytes) -> int:
    """Ceph's default object hash (``ceph_str_hash_rjenkins``) of ``name``: 32 bits."""
    k = name.encode() if isinstance(name, str) else name
    a = b = GOLDEN
    c = 0
    i, left = 0, len(k)
    while left >= 12:
        a = (a + _word(k, i)) & _M
        b = (b + _word(k, i + 4)) & _M
        c = (c + _word(k, i + 8)) & _M
        a, b, c = _mix(a, b, c)
        i, left = i + 12, left - 12
    c = (c + len(k)) & _M
    tail = k[i:]
    # the last bytes, little-endian into a (0-3), b (4-7) and c above its lowest byte (8-10)
    for n, byte in enumerate(tail):
        if n < 4:
            a = (a + (byte << (8 * n))) & _M
        elif n < 8:
            b = (b + (byte << (8 * (n - 4)))) & _M
        else:
            c = (c + (byte << (8 * (n - 7)))) & _M
    return _mix(a, b, c)[2]


def pg_mask(pg_num: int) -> int:
    """The mask under the next power of two at or above ``pg_num`` (Ceph's ``pg_num_mask``)."""
    return (1 << max(0, (pg_num - 1).bit_length())) - 1


def stable_mod(x: int, b: int, bmask: int) -> int:
    """Ceph's ``ceph_stable_mod``: ``x`` folded into ``b`` buckets without moving most of
    them when ``b`` grows."""
    return x & bmask if (x & bmask) < b else x & (bmask >> 1)


def pg_of(name: str, pool_id: int, pg_num: int) -> str:
    """The PG (``POOL.SEED`` in hex, as Ceph prints it) that object ``name`` of the pool
    belongs to."""
    return f"{pool_id}.{stable_mod(rjenkins(name), pg_num, pg_mask(pg_num)):x}"


def names_by_primary(
    prefix: str,
    pool_id: int,
    pg_num: int,
    primaries: dict[str, int],
    per_osd: int,
    tries: int = 100_000,
) -> dict[int, list[str]]:
    """Object names ``PREFIX.N`` (N from 0) grouped by the OSD that is primary of their PG
    (``primaries``: PG -> its acting primary), each OSD given up to ``per_osd`` names, each
    in a PG of its own: the OSDs' shares of the pool's reads spread as a client's would."""
    out: dict[int, list[str]] = {osd: [] for osd in sorted(set(primaries.values()))}
    pgs_of = {osd: sum(1 for p in primaries.values() if p == osd) for osd in out}
    used: set[str] = set()
    for name in _names(prefix, tries):
        pg = pg_of(name, pool_id, pg_num)
        osd = primaries.get(pg)
        if osd is None or pg in used or len(out[osd]) >= min(per_osd, pgs_of[osd]):
            continue
        used.add(pg)
        out[osd].append(name)
        if all(len(v) >= min(per_osd, pgs_of[o]) for o, v in out.items()):
            break
    return out


def _names(prefix: str, tries: int) -> Iterator[str]:
    return (f"{prefix}.{n}" for n in range(tries))
