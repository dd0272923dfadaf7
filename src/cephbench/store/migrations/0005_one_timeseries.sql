-- cephbench result store, version 5: one time-series table.
-- Every time series of a run in one table: a workload's metric over time (fio's logs, rados
-- bench's per-second table) and the samples of a whole run (health, page cache drops).
-- Numbers are a zlib-compressed little-endian float64 array [t_0 .. t_n-1, v_0 .. v_n-1]
-- (encoding f8); samples whose values are records (JSON objects) are zlib-compressed JSON
-- [[t, value], ...] (encoding json).
CREATE TABLE series_v5 (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    repeat    INTEGER NOT NULL,
    workload  TEXT NOT NULL,     -- the workload, or '' for the whole run (health, drop_caches)
    op        TEXT NOT NULL,     -- read, write, trim, or '' when the tool does not split them
    metric    TEXT NOT NULL,     -- iops, bw_bytes_per_s, lat_mean_us, ..., health, drop_caches
    n         INTEGER NOT NULL,  -- number of points
    encoding  TEXT NOT NULL CHECK (encoding IN ('f8', 'json')),
    data_z    BLOB NOT NULL
);

-- fio's logs: already float64, moved as they are.
INSERT INTO series_v5 (run_id, repeat, workload, op, metric, n, encoding, data_z)
    SELECT run_id, repeat, workload, op, metric, n, 'f8', data_z FROM timeseries ORDER BY id;

-- JSON points ([[seconds, value], ...]): numbers packed as float64, records kept as JSON
-- (points_* are this migration's Python functions, 0005_one_timeseries.py). rados bench's
-- lat_avg_us is the metric lat_mean_us, as the reports always read it.
INSERT INTO series_v5 (run_id, repeat, workload, op, metric, n, encoding, data_z)
    SELECT run_id, repeat, workload, '',
           CASE WHEN workload <> '' AND name = 'lat_avg_us' THEN 'lat_mean_us' ELSE name END,
           points_n(points), points_encoding(points), points_z(points)
    FROM series ORDER BY id;

DROP TABLE timeseries;
DROP TABLE series;
ALTER TABLE series_v5 RENAME TO series;
CREATE INDEX series_run ON series (run_id);
