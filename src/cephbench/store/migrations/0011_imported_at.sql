-- cephbench result store, version 11: an imported run is dated when its output says it ran
-- (fio's, iperf3's, rados bench's own time) in started_at; the time it was imported is kept
-- beside it. NULL for runs cephbench ran, and for runs imported before this version (their
-- started_at is their import time).
ALTER TABLE runs ADD COLUMN imported_at TEXT;
