-- cephbench result store, version 7: indexes for a store of years (10,000 runs and more).
-- Every command opens the store by looking for runs a crashed process left 'running'.
CREATE INDEX IF NOT EXISTS runs_status ON runs (status, host);
-- A run's raw outputs (show's notes, report's provenance, export) and its resources, and
-- what deleting a run cascades to: without these, each reads every row of every run.
CREATE INDEX IF NOT EXISTS outputs_run ON outputs (run_id);
CREATE INDEX IF NOT EXISTS resources_run ON resources (run_id);
-- Two indexes the UNIQUE constraints' own already serve (their first column is the same):
-- (run_id, repeat, name) finds a run's workloads, (workload_id, op) a workload's results.
-- Each cost every import and run a write per row, and space, for nothing.
DROP INDEX IF EXISTS workloads_run;
DROP INDEX IF EXISTS results_workload;
