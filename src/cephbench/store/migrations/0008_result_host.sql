-- cephbench result store, version 8: results of a run from many clients (--clients).
-- Each client's result is a row with the client's host beside the aggregate cephbench
-- computed (host NULL), as are the results of every run from one machine.
ALTER TABLE results ADD COLUMN host TEXT;
