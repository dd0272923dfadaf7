-- cephbench result store, version 15: tunes left `running` by a dead process are found at
-- every open of the store (as runs, experiments and capacity searches are), through an index.
CREATE INDEX tunings_status ON tunings (status, host);
