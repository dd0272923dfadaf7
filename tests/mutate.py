"""Mutations of real outputs for fuzzing the importer: shared by tests/unit/test_fuzz_corpus.py and
bench/fuzz_import.py. Each is what pasting, editing or a broken tool can do to an output."""

from __future__ import annotations

import random
import re

JUNK = [
    "",
    "-",
    "nan",
    "inf",
    "1e999",
    "-1",
    "0",
    "99999999999999999999",
    "ａ",
    "\x00",
    "{",
    "}",
    "]",
    '"',
    "\\",
    "```",
    "Total time run:",
    "osd.0: {",
    "sender",
    "receiver",
    "KB/sec",
    "Gbits/sec",
]
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def mutate(text: str, rng: random.Random) -> str:
    """``text`` with one to three random edits."""
    for _ in range(rng.randint(1, 3)):
        lines = text.splitlines(keepends=True) or [""]
        i = rng.randrange(len(lines))
        op = rng.randrange(9)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            text = text[: rng.randrange(len(text) + 1)]
            continue
        elif op == 3:
            numbers = list(NUMBER.finditer(lines[i]))
            if numbers:
                m = rng.choice(numbers)
                lines[i] = lines[i][: m.start()] + rng.choice(JUNK) + lines[i][m.end() :]
        elif op == 4:
            lines[i] = lines[i].replace(" ", "", rng.randint(1, 3))  # glued columns
        elif op == 5:
            lines.insert(i, rng.choice(JUNK) + "\n")
        elif op == 6:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 7:
            lines[i] = lines[i].upper() if rng.random() < 0.5 else lines[i].strip() + "\n"
        else:
            pos = rng.randrange(len(text) + 1)
            text = text[:pos] + rng.choice(JUNK) + text[pos:]
            continue
        text = "".join(lines)
    return text
