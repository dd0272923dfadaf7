-- cephbench result store, version 12: capacity searches (`cephbench capacity`). Each step is
-- an ordinary run (fio at a fixed offered rate); the search keeps what it was asked, every
-- step in the order run (its offered and achieved IOPS, percentiles, run id and what ran
-- beside it), and how it ended.
CREATE TABLE capacities (
    id          INTEGER PRIMARY KEY,
    status      TEXT NOT NULL,              -- running, complete, failed, aborted
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    host        TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    target      TEXT,
    spec        TEXT NOT NULL,              -- JSON: rule, workload, search, repeats, while
    steps       TEXT NOT NULL DEFAULT '[]', -- JSON: [{repeat, offered_iops, ...}] as run
    notes       TEXT NOT NULL DEFAULT '[]', -- JSON: what the search said (recovery ended...)
    error       TEXT
);

CREATE INDEX capacities_status ON capacities (status, host);
