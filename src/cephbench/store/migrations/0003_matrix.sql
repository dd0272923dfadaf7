-- cephbench result store, version 3: sweeps and time series.
-- fio's rwmixread of a mixed workload: a matrix parameter reports can pivot on.
ALTER TABLE results ADD COLUMN rwmixread INTEGER;

-- Time series of a workload (fio's bandwidth, IOPS and latency logs; rados bench's table),
-- stored compactly: one row per (workload, repeat, direction, metric), the points as a
-- zlib-compressed little-endian float64 array [t_0 .. t_n-1, v_0 .. v_n-1].
CREATE TABLE timeseries (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    repeat    INTEGER NOT NULL,
    workload  TEXT NOT NULL,
    op        TEXT NOT NULL,     -- read, write, trim, or '' when the tool does not split them
    metric    TEXT NOT NULL,     -- iops, bw_bytes_per_s, lat_mean_us, lat_p99_us, lat_max_us
    n         INTEGER NOT NULL,  -- number of points
    data_z    BLOB NOT NULL
);
CREATE INDEX timeseries_run ON timeseries (run_id);
