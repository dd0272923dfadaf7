-- cephbench result store, version 14: a capacity search's cross-check (`--cross-check`), fio's
-- own latency_target mode run once after the search: the queue depth it settled on, its IOPS
-- and its run (JSON; NULL when none ran).
ALTER TABLE capacities ADD COLUMN cross_check TEXT;
