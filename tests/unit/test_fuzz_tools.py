"""Whatever text comes in, the rados bench, osd bench and iperf3 parsers (and the importer
around them) return records or raise ParseError, nothing else."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cephbench.errors import ParseError
from cephbench.importing import importer
from cephbench.tools.iperf3 import driver as iperf3
from cephbench.tools.iperf3 import importing as iperf3_import
from cephbench.tools.iperf3 import paste as iperf3_text
from cephbench.tools.osd_bench import driver as osd_bench
from cephbench.tools.osd_bench import importing as osd_import
from cephbench.tools.osd_bench import paste as osd_bench_text
from cephbench.tools.rados_bench import driver as rados_bench
from cephbench.tools.rados_bench import importing as rados_import
from cephbench.tools.rados_bench import paste as rados_bench_paste
from tests.data.make_expected_tools import fixtures
from tests.fuzzing import json_values, replace_somewhere

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SAMPLES = [p.read_text() for p in fixtures()]
JSON_SAMPLES = [s for s in SAMPLES if s.lstrip().startswith("{")]

PARSERS = {
    "rados_bench.parse": lambda t: rados_bench.to_result(rados_bench.parse(t, "write"), 0, None),
    "rados_bench_paste": lambda t: [p.result() for p in rados_bench_paste.parse_pasted(t)],
    "osd_bench.parse": lambda t: osd_bench.parse(t, 0),
    "osd_bench_text": osd_bench_text.parse_all,
    "iperf3_text": iperf3_text.parse_text,
    "iperf3.documents": lambda t: [iperf3.from_json(d, "x") for d in iperf3.documents(t)],
    "import rados-bench": rados_import.from_text,
    "import osd-bench": osd_import.from_text,
    "import iperf3": iperf3_import.from_text,
    "importer": lambda t: importer.plan("fuzz", t, None),
}

# lines real outputs are made of, to build plausible nonsense from
TOOL_LINES = st.sampled_from(
    [
        "Total time run:         3.15777",
        "Total writes made:      68",
        "Total reads made:     -1",
        "Write size:             4194304",
        "Bandwidth (MB/sec):     1e999",
        "Average IOPS          0",
        "Average Latency(s):     0.7",
        "  sec Cur ops   started  finished  avg MB/s  cur MB/s last lat(s)  avg lat(s)",
        "    1      16        20         4   15.9806        16    0.994429    0.927525",
        "$ rados bench -p rbd 10 seq -t 0",
        "osd.0: {",
        '    "bytes_written": 1073741824,',
        '"blocksize": 0,',
        '"bytes_per_sec": "x"',
        "}",
        "osd.1: Error ENXIO: problem getting command descriptions from osd.1",
        "osd.0 [INF] bench: wrote 1024 MB in blocks of 0 KB in 0 sec at 165 MB/sec",
        "[SUM]   0.00-0.00   sec  0.00 Bytes  0.00 bits/sec    0             sender",
        "[  5]   3.00-1.00   sec  5.67 TBytes  16.2 Tbits/sec                  receiver",
        "Reverse mode, remote host 127.0.0.1 is sending",
        '{"start": {}, "end": {"sum_sent": {}}}',
        '{"start": {"version": "iperf 3.12"}, "error": "refused"}',
    ]
)


def _records_or_parse_error(name: str, text: str) -> None:
    try:
        records = PARSERS[name](text)
    except ParseError:
        return
    # a result, or a list of them; empty only where "no document here" is an answer
    assert records is not None and (records or name == "iperf3.documents")


@FUZZ
@given(st.sampled_from(sorted(PARSERS)), st.text())
def test_arbitrary_text(name, text):
    _records_or_parse_error(name, text)


@FUZZ
@given(st.sampled_from(sorted(PARSERS)), st.lists(TOOL_LINES | st.text(max_size=20), max_size=25))
def test_lines_of_real_outputs_in_any_order(name, lines):
    _records_or_parse_error(name, "\n".join(lines))


@FUZZ
@given(st.sampled_from(sorted(PARSERS)), st.sampled_from(SAMPLES), st.data())
def test_truncated_real_output(name, sample, data):
    start = data.draw(st.integers(0, len(sample)))
    end = data.draw(st.integers(start, len(sample)))
    _records_or_parse_error(name, sample[start:end])


@FUZZ
@given(st.sampled_from(JSON_SAMPLES), st.data(), json_values)
def test_real_json_with_a_field_replaced(sample, data, value):
    """Replace one value somewhere in a real iperf3 or osd bench document with anything."""
    doc = json.loads(sample)
    doc = replace_somewhere(doc, data, value, depth=5)
    text = json.dumps(doc)
    for name in (
        "iperf3.documents",
        "import iperf3",
        "osd_bench_text",
        "import osd-bench",
        "importer",
    ):
        _records_or_parse_error(name, text)
