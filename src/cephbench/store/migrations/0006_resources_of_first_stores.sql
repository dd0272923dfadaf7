-- cephbench result store, version 6: the resource log in stores the first cephbench made.
-- Its 0001_initial.sql had no resources table (added to 0001 a commit later), so a store it
-- created reached version 1 without one and `cephbench cleanup` failed on it.
CREATE TABLE IF NOT EXISTS resources (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    detail      TEXT NOT NULL DEFAULT '{}',   -- JSON: what undoing it needs
    created_at  TEXT NOT NULL,
    removed_at  TEXT
);
CREATE INDEX IF NOT EXISTS resources_open ON resources (removed_at);
