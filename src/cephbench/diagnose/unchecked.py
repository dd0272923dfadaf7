"""Checks a probe could not make, as the evidence lists them (``not_checked``, plain text:
stored diagnoses hold these very words): each text with its code, so the diagnosis files it
under the code's layer instead of guessing the layer from the words. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from cephbench.diagnose import codes
from cephbench.diagnose.codes import Code
from cephbench.diagnose.finding import Check, Status


@dataclass(frozen=True)
class Unchecked:
    code: Code
    text: str

    def checked(self) -> Check:
        """The diagnosis' ``checked`` entry."""
        return Check(self.code.layer, self.text, Status.NOT_POSSIBLE)


IPERF3_OUT_OF_REACH = Unchecked(
    codes.NETWORK_IPERF3_UNCHECKED,
    "iperf3 between hosts: not possible without access to the hosts",
)
PING_OUT_OF_REACH = Unchecked(
    codes.NETWORK_PING_UNCHECKED,
    "ping round trips and MTU between hosts: not possible without access to the hosts (the "
    "OSDs' heartbeat times were read instead)",
)
SYNC_WRITE_OUT_OF_REACH = Unchecked(
    codes.DEVICE_SYNC_WRITE_UNCHECKED,
    "sync-write QD1 on each OSD's device: not possible without access to the hosts "
    "(BlueStore's counters and osd bench were read instead)",
)
SYNC_WRITE_HOLDS_DATA = Unchecked(
    codes.DEVICE_SYNC_WRITE_UNCHECKED,
    "sync-write QD1 on each OSD's raw device: not done (the lab's devices hold data; "
    "BlueStore's counters and osd bench were read instead)",
)
OSD_BENCH_SKIPPED = Unchecked(codes.OSD_BENCH_UNCHECKED, "osd bench: skipped (--no-osd-bench)")
OSD_READS_SKIPPED = Unchecked(
    codes.OSD_BENCH_UNCHECKED, "each OSD's own reads: skipped (--no-osd-bench)"
)
OSD_READS_UNPLACED = Unchecked(
    codes.OSD_BENCH_UNCHECKED,
    "each OSD's own reads: not possible (the diagnosis' pool is not replicated, or no PG of "
    "it has a primary that is up)",
)

BY_TEXT = {
    u.text: u
    for u in (
        IPERF3_OUT_OF_REACH,
        PING_OUT_OF_REACH,
        SYNC_WRITE_OUT_OF_REACH,
        SYNC_WRITE_HOLDS_DATA,
        OSD_BENCH_SKIPPED,
        OSD_READS_SKIPPED,
        OSD_READS_UNPLACED,
    )
}


def checked(text: str) -> Check:
    """The ``checked`` entry of a ``not_checked`` text; one no probe declares (none does
    today) goes under the OSD layer, as every such text always did."""
    known = BY_TEXT.get(text)
    if known is None:
        return Check("osd", text, Status.NOT_POSSIBLE)
    return known.checked()
