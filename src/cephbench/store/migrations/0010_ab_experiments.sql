-- cephbench result store, version 10: A/B experiments (`cephbench ab`). Each round is an
-- ordinary run (its label the side's); the experiment keeps the sides' changes, the rounds in
-- the order they ran, and what was applied and reverted.
CREATE TABLE ab_experiments (
    id          INTEGER PRIMARY KEY,
    suite       TEXT NOT NULL,
    status      TEXT NOT NULL,              -- running, complete, failed, aborted
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    host        TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    spec        TEXT NOT NULL,              -- JSON: sides (label, changes), options
    rounds      TEXT NOT NULL DEFAULT '[]', -- JSON: [{round, side, run_id}] in the order run
    log         TEXT NOT NULL DEFAULT '{}', -- JSON: {applied: [...], reverted: [...]}
    error       TEXT
);
