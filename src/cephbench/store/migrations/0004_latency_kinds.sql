-- cephbench result store, version 5: latency of every kind fio recorded.
-- lat_mean_us is fio's total latency mean (submission to completion) wherever fio recorded it;
-- the completion and submission latency means are kept beside it. lat_kind names the kind of
-- the percentiles (clat unless fio ran with lat_percentiles=1).
ALTER TABLE results ADD COLUMN clat_mean_us REAL;
ALTER TABLE results ADD COLUMN slat_mean_us REAL;
