-- cephbench result store, version 2: Ceph runs.
-- Figures a tool reports beyond the common columns (rados bench stddevs, iperf3 retransmits).
ALTER TABLE results ADD COLUMN metrics TEXT NOT NULL DEFAULT '{}';   -- JSON {name: value}

-- The cluster a run measured: Ceph's own JSON (versions, status, osd tree/metadata, pools,
-- crush rules, df, config dump), collected once per run; zlib-compressed JSON.
CREATE TABLE cluster_fingerprints (
    run_id        INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    collected_at  TEXT NOT NULL,
    pool          TEXT,          -- the pool the run used, for the replication/capacity rows
    data_z        BLOB NOT NULL
);

-- Time series: per-second tool output (rados bench), health samples during a run.
CREATE TABLE series (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    repeat    INTEGER NOT NULL,
    workload  TEXT NOT NULL,     -- the workload, or '' for the whole run (health)
    name      TEXT NOT NULL,     -- e.g. bw_bytes_per_s, lat_avg_us, health
    points    TEXT NOT NULL      -- JSON [[seconds, value], ...]
);
CREATE INDEX series_run ON series (run_id);
