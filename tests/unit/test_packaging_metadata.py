"""``make install`` builds without setuptools' deprecation warnings: the licence is an SPDX
string (a TOML table is deprecated), which needs setuptools 77 or later to build."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"


def test_license_is_an_spdx_string_and_the_build_requires_a_setuptools_that_reads_it():
    doc = tomllib.loads(PYPROJECT.read_text())
    assert doc["project"]["license"] == "MIT"
    (setuptools,) = [r for r in doc["build-system"]["requires"] if r.startswith("setuptools")]
    m = re.fullmatch(r"setuptools>=(\d+)(?:\.\d+)*", setuptools)
    assert m and int(m.group(1)) >= 77, setuptools
