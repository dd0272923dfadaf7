"""A chunk of log lines into integer columns, vectorised: field bounds from the commas and
newlines, each field read as the 8-byte word ending it and converted with SWAR arithmetic
(see the package docstring)."""

from __future__ import annotations

import numpy as np

_PAD = 8  # spaces before each chunk: the 8-byte word ending at any field stays in the buffer
_MAX_DIGITS = 16


class _BadLine(Exception):
    """A line of a chunk that is not a log line: its index in the chunk, why, and its text."""

    def __init__(self, index: int, why: str, text: bytes):
        super().__init__(index, why, text)
        self.index, self.why, self.text = index, why, text


_EXPECTED = "expected 5 or 6 integers: time, value, direction (0-2), block size, offset[, priority]"

# A field is read as the 8 bytes that end it: one little-endian uint64, its first byte lowest.
_U64 = np.uint64
_ZEROS = _U64(0x3030303030303030)  # b"00000000"
_NOT_DIGIT = _U64(0x7676767676767676)  # + a byte of 10..127 sets its bit 7
_BIT7 = _U64(0x8080808080808080)
_LAST_BYTES = np.array([(2**64 - 1) ^ (2 ** (8 * (8 - n)) - 1) for n in range(9)], dtype=np.uint64)
"""``_LAST_BYTES[n]`` keeps the n highest bytes of a word: a field of n bytes that ends it."""
_COMBINE = (  # digit pairs, then quads, then the octet: (mask before, multiplier, shift after)
    (None, _U64(10 * 2**8 + 1), _U64(8)),
    (_U64(0x00FF00FF00FF00FF), _U64(100 * 2**16 + 1), _U64(16)),
    (_U64(0x0000FFFF0000FFFF), _U64(10000 * 2**32 + 1), _U64(32)),
)


def _octet(
    words: np.ndarray, end: np.ndarray, length: np.ndarray, bad: np.ndarray, runs: bool = False
) -> np.ndarray:
    """The integers of the ``length`` (0..8) bytes before each ``end``; ``bad`` gets bit 7 of
    a byte that is no digit. ``runs``: lines often repeat the field (time, block size), so
    convert each run of equal fields once."""
    w = words[end - 8]
    w ^= _ZEROS  # digits become 0..9
    w &= _LAST_BYTES[length]  # bytes before the field become 0: leading zeros
    lengths = None
    if runs and len(w) > 1:
        change = np.empty(len(w), bool)
        change[0] = True
        np.not_equal(w[1:], w[:-1], out=change[1:])
        firsts = np.flatnonzero(change)
        if len(firsts) <= len(w) // 4:  # else not worth it
            w, lengths = w[firsts], np.diff(firsts, append=len(w))
    if lengths is None:
        bad |= w
        bad |= w + _NOT_DIGIT  # (a byte of 128+ already has bit 7; its carry is harmless)
    else:
        not_digits = (w | (w + _NOT_DIGIT)) & _BIT7
        if not_digits.any():
            bad |= np.repeat(not_digits, lengths)
    for mask, multiplier, shift in _COMBINE:
        if mask is not None:
            w &= mask
        w *= multiplier  # each lane gets 10**k times its left neighbour added ...
        w >>= shift  # ... and moves down into it
    return w if lengths is None else np.repeat(w, lengths)


def _integers(
    words: np.ndarray, end: np.ndarray, length: np.ndarray, bad: np.ndarray, runs: bool = False
) -> np.ndarray:
    """Decimal fields of 1..16 digits ending at ``end``, as int64; ``bad`` marks the others."""
    if not len(length) or (length.min() >= 1 and length.max() <= 8):
        return _octet(words, end, length, bad, runs).view(np.int64)
    value = _octet(words, end, np.minimum(length, 8), bad)
    bad |= ((length < 1) | (length > _MAX_DIGITS)).view(np.uint8) * _BIT7
    long = np.flatnonzero((length > 8) & (length <= _MAX_DIGITS))
    if long.size:
        high_bad = np.zeros(long.size, np.uint64)
        value[long] += _octet(words, end[long] - 8, length[long] - 8, high_bad) * _U64(10**8)
        bad[long] |= high_bad
    return value.view(np.int64)


def _parse_chunk(buf: bytearray, end: int, commas: int) -> tuple[np.ndarray, ...]:
    """Time, value, direction and block size of the lines of ``buf[_PAD:end]`` (whole lines,
    ``commas`` commas each); _BadLine for the first line that is not a log line."""
    a = np.frombuffer(buf, np.uint8, end)
    newlines = np.flatnonzero(a == 10)
    n = len(newlines)
    starts = np.empty(n, np.intp)
    starts[0] = _PAD
    starts[1:] = newlines[:-1] + 1

    def refuse(where: np.ndarray, why: str = _EXPECTED):
        i = int(np.flatnonzero(where)[0])
        return _BadLine(i, why, a[starts[i] : newlines[i]].tobytes())

    is_comma = a == 44
    found = np.flatnonzero(is_comma)
    # commas per line, counted (not inferred from the total: one line's extra comma and
    # another's missing one would cancel and blame a good line in between)
    per_line = np.diff(np.searchsorted(found, newlines), prepend=0)
    if (per_line != commas).any():
        raise refuse(per_line != commas, f"expected {commas + 1} columns like the first line")
    c = found.reshape(n, commas)
    if not np.array_equal(is_comma[_PAD:-1], a[_PAD + 1 :] == 32):  # ", " and no other space
        # the byte after each mismatch: the space that follows no comma (at a line's start,
        # it is in the next line), or what follows a comma instead of its space
        after = np.searchsorted(
            newlines, np.flatnonzero(is_comma[_PAD:-1] != (a[_PAD + 1 :] == 32)) + _PAD + 1
        )
        raise refuse(np.isin(np.arange(n), after))
    c0, c1, c2, c3 = c[:, 0], c[:, 1], c[:, 2], c[:, 3]
    words = np.ndarray((end - 7,), dtype="<u8", buffer=buf, strides=(1,))
    bad = np.zeros(n, np.uint64)
    t = _integers(words, c0, c0 - starts, bad, runs=True)
    value = _integers(words, c1, c1 - c0 - 2, bad)
    bs = _integers(words, c3, c3 - c2 - 2, bad, runs=True)
    ddir = a[c1 + 2] - np.uint8(48)
    bad &= _BIT7
    bad |= (ddir > 2) | (c2 - c1 != 3)
    if bs.max(initial=0) > np.iinfo(np.int32).max:
        bad |= bs > np.iinfo(np.int32).max
    if bad.any():
        raise refuse(bad)
    return t, value, ddir.view(np.int8), bs
