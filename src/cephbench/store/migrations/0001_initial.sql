-- cephbench result store, version 1.
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    label       TEXT,
    suite       TEXT NOT NULL,
    target      TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'aborted')),
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    host        TEXT,          -- where the run's process lives, to find runs a crash left 'running'
    pid         INTEGER,
    environment TEXT NOT NULL DEFAULT '{}',   -- JSON
    params      TEXT NOT NULL DEFAULT '{}',   -- JSON
    error       TEXT
);

-- What a tool printed, kept whole (stdout compressed), with the exact input it was given.
CREATE TABLE outputs (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    repeat      INTEGER NOT NULL,
    tool        TEXT NOT NULL,
    argv        TEXT NOT NULL,   -- JSON list
    input_text  TEXT,            -- e.g. the fio job file
    stdout_z    BLOB,            -- zlib
    stderr      TEXT,
    returncode  INTEGER,
    started_at  TEXT NOT NULL,
    seconds     REAL
);

CREATE TABLE workloads (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    repeat      INTEGER NOT NULL,
    seq         INTEGER NOT NULL,   -- order within the repeat
    name        TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error       TEXT,
    output_id   INTEGER REFERENCES outputs(id) ON DELETE SET NULL,
    UNIQUE (run_id, repeat, name)
);

CREATE TABLE results (
    id              INTEGER PRIMARY KEY,
    workload_id     INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
    op              TEXT NOT NULL CHECK (op IN ('read', 'write', 'trim')),
    rw              TEXT,
    bs              INTEGER,
    iodepth         INTEGER,
    numjobs         INTEGER,
    runtime_s       REAL,
    iops            REAL,
    bw_bytes_per_s  REAL,
    io_bytes        INTEGER,
    total_ios       INTEGER,
    lat_mean_us     REAL,
    lat_p50_us      REAL,
    lat_p90_us      REAL,
    lat_p99_us      REAL,
    lat_p999_us     REAL,
    lat_max_us      REAL,
    lat_kind        TEXT CHECK (lat_kind IN ('lat', 'clat')),
    percentiles     TEXT NOT NULL DEFAULT '[]',  -- JSON [[percent, us], ...]
    error           INTEGER NOT NULL DEFAULT 0,
    flags           TEXT NOT NULL DEFAULT '[]',  -- JSON list
    UNIQUE (workload_id, op)
);

CREATE INDEX workloads_run ON workloads (run_id);
CREATE INDEX results_workload ON results (workload_id);

-- Everything a run creates (files, pools, images, flags), recorded before it is created and
-- marked removed once undone: `cephbench cleanup` undoes what a killed run left.
CREATE TABLE resources (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    detail      TEXT NOT NULL DEFAULT '{}',   -- JSON: what undoing it needs
    created_at  TEXT NOT NULL,
    removed_at  TEXT
);
CREATE INDEX resources_open ON resources (removed_at);
