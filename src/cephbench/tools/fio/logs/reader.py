"""Reading a log file: 4 MiB chunks cut at the last newline into a few reused buffers,
parsed one after another or in threads side by side, joined into one :class:`Log`."""

from __future__ import annotations

import io
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path

import numpy as np

from cephbench.errors import ParseError
from cephbench.tools.fio.logs.fields import _EXPECTED, _PAD, _BadLine, _parse_chunk
from cephbench.tools.fio.logs.log import Log
from cephbench.tools.fio.logs.names import _NAME

CHUNK_BYTES = 4 << 20
_MIN_LINE = len("0, 0, 0, 0, 0\n")


def read_log(path: str | os.PathLike[str], *, threads: int = 2) -> Log:
    """Read one fio log file; ParseError naming the file and line when it is not one.

    ``threads`` parse chunks of a large file side by side.
    """
    path = Path(path)
    match = _NAME.search(path.name)
    kind, clone = (match.group(1), int(match.group(2) or 0)) if match else ("", 0)
    with open(path, "rb") as f:
        columns = _read_columns(f, path.stat().st_size, path.name, threads)
    return Log(path.name, kind, clone, *columns)


def parse_log(text: bytes, name: str = "<log>", kind: str = "", clone: int = 0) -> Log:
    """The columns of a log given as bytes (no file): for tests and small logs."""
    return Log(name, kind, clone, *_read_columns(io.BytesIO(text), len(text), name, 1))


def _read_columns(
    f: io.BufferedIOBase, size: int, name: str, threads: int
) -> tuple[np.ndarray, ...]:
    capacity = (size + 1) // _MIN_LINE + 1  # pages of these arrays never written take no memory
    out: tuple[np.ndarray, ...] = (
        np.empty(capacity, np.int64),
        np.empty(capacity, np.int64),
        np.empty(capacity, np.int8),
        np.empty(capacity, np.int32),
    )
    filled = 0

    def append(result: Callable[[], tuple[np.ndarray, ...]]) -> None:
        nonlocal filled
        try:
            cols = result()
        except _BadLine as e:
            raise ParseError(
                f"{name}, line {filled + e.index + 1}: {e.why}: {e.text[:80]!r}"
            ) from None
        n = len(cols[0])
        for dst, src in zip(out, cols, strict=True):
            dst[filled : filled + n] = src  # (int64 block sizes checked to fit int32)
        filled += n

    threads = threads if size > CHUNK_BYTES else 1
    chunks = _chunks(f, size, name, buffers=1 if threads < 2 else threads + 2)
    if threads < 2:
        for c in chunks:
            append(partial(_parse_chunk, *c))
    else:
        with ThreadPoolExecutor(threads) as pool:
            pending: deque[Future] = deque()
            for c in chunks:
                pending.append(pool.submit(_parse_chunk, *c))
                if len(pending) > threads:
                    append(pending.popleft().result)
            while pending:
                append(pending.popleft().result)
    return tuple(a[:filled] for a in out)


def _chunks(
    f: io.BufferedIOBase, size: int, name: str, buffers: int
) -> Iterator[tuple[bytearray, int, int]]:
    """``(buffer, end, commas per line)`` for each run of whole lines in the first ``size``
    bytes of ``f`` (a log fio is still writing is read as it was).

    Each buffer starts with ``_PAD`` spaces; its lines end at ``end``. ``buffers`` are used in
    turn (fresh memory for every chunk costs more than parsing it): a buffer is filled again
    ``buffers`` chunks later. The column count is the first line's.
    """
    carry, commas, turn = b"", -1, 0
    pool: list[bytearray] = []
    room_needed = min(size, CHUNK_BYTES) + 1  # a small log gets a small buffer, not 4 MiB
    while True:
        if len(pool) < buffers:
            pool.append(bytearray(b" " * _PAD) + bytearray(room_needed))
        buf = pool[turn % buffers]
        turn += 1
        buf[_PAD : _PAD + len(carry)] = carry
        room = min(size, CHUNK_BYTES - len(carry))
        n = f.readinto(memoryview(buf)[_PAD + len(carry) : _PAD + len(carry) + room])
        size -= n
        end = _PAD + len(carry) + n
        if n == 0:
            if not carry:
                return
            buf[end : end + 1] = b"\n"  # a last line without its newline
            end += 1
        cut = buf.rfind(b"\n", _PAD, end) + 1
        if cut == 0:  # no line ends in this chunk yet
            if end - _PAD >= CHUNK_BYTES:
                raise ParseError(f"{name}: a line longer than {CHUNK_BYTES} bytes: not a fio log")
            carry = bytes(buf[_PAD:end])
            continue
        if commas < 0:
            first = bytes(buf[_PAD : buf.find(b"\n", _PAD)])
            commas = first.count(b",")
            if commas not in (4, 5):
                raise ParseError(f"{name}, line 1: {_EXPECTED}: {first[:80]!r}")
        carry = bytes(buf[cut:end])
        yield buf, cut, commas
        if n == 0:
            return
