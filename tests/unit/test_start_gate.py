"""The start gate's lead: the first one for pods set from how long reaching a pod took, later
ones learnt from when the clients arrived (tools/fio/many.py)."""

from __future__ import annotations

import pytest

from cephbench.tools.fio.many import MAX_LEAD, MIN_LEAD, START_LEAD, StartGate


@pytest.mark.parametrize(
    ("seconds", "lead"),
    [(None, START_LEAD), (0.3, 1.1), (0.1, MIN_LEAD), (1.0, 2.5), (30.0, MAX_LEAD)],
)
def test_the_first_lead_follows_the_time_a_pod_took_to_reach(seconds, lead):
    assert StartGate.after_reach(seconds).lead == pytest.approx(lead)


def test_later_leads_are_learnt_from_the_arrivals():
    gate = StartGate.after_reach(0.3)
    gate.observe(100.0, [100.5, 100.7, 100.6])
    assert gate.lead == pytest.approx(0.7 * 1.2 + 0.3)
    gate.observe(100.0, [])  # nobody arrived at a gate (an image without date): kept
    assert gate.lead == pytest.approx(0.7 * 1.2 + 0.3)
