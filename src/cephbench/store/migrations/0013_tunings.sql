-- cephbench result store, version 13: tunes (`cephbench tune`). Each attempt is an A/B
-- experiment (ab_experiments); the tune keeps its plan, its document (cephbench.tuning/1:
-- findings, candidates, attempts) and the changes --keep left, each with what restores it.
CREATE TABLE tunings (
    id          INTEGER PRIMARY KEY,
    status      TEXT NOT NULL,              -- running, complete, failed, aborted
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    host        TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    doc         TEXT NOT NULL DEFAULT '{}', -- JSON: the tune's document so far
    kept        TEXT NOT NULL DEFAULT '[]', -- JSON: [{change, setting detail, reverted_at}]
    error       TEXT
);
