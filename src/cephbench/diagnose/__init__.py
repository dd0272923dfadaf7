"""``cephbench diagnose``: generate a short known load, read the cluster's own counters
before and after, and say where the performance goes, layer by layer, with evidence.

tool.py runs the probes (each registered like a tool, probes.py) inside a stored run;
evidence.py, findings.py, the rules (registered like plugins, rules/), budget.py and the
counters' windows (``cephbench.ceph.counters``, which capacity reads too) are pure: recorded dumps in, findings out, so the engine is tested on real
recorded outputs without a cluster. Every finding carries a code (codes.py) that says its
layer and what it found; rules and tests read codes, never a finding's words.

A rule that needs data no probe collects: a probe (one module and a line in probes.py's
registry, or an entry point of ``cephbench.diagnose_probes``) adds it to the evidence, with
the pure reader of the Ceph output beside it; the rule (one module and a line in
rules/__init__.py's registry, or an entry point of ``cephbench.diagnose_rules``) reads it;
the codes of its findings go in codes.py.
"""
