-- cephbench result store, version 9: views for reading the store with sqlite3 (or any SQL
-- tool): readable column names, units in them, the same names as `--format csv`.
-- Views hold no data: they are queries over the tables, always up to date, and dropping one
-- loses nothing. Figures are exactly as stored (bytes, bytes per second, microseconds,
-- seconds); a figure the tool did not measure is NULL.

-- One row per run.
CREATE VIEW run_list AS
    SELECT r.id           AS run_id,
           r.label        AS label,
           r.suite        AS suite,
           r.target       AS target,
           r.status       AS status,
           r.started_at   AS started_at,
           r.ended_at     AS ended_at,
           r.host         AS host,
           (SELECT COUNT(*) FROM workloads w WHERE w.run_id = r.id AND w.status = 'ok')
                          AS workloads_ok,
           (SELECT COUNT(*) FROM workloads w WHERE w.run_id = r.id AND w.status = 'failed')
                          AS workloads_failed,
           r.error        AS error
    FROM runs r;

-- One row per result (a direction of a workload in a repeat), with its run's fields.
CREATE VIEW result_list AS
    SELECT r.id              AS run_id,
           r.label           AS label,
           r.suite           AS suite,
           r.target          AS target,
           r.status          AS status,
           r.started_at      AS started_at,
           w.name            AS workload,
           w.repeat          AS repeat,
           x.op              AS op,
           x.host            AS client_host,  -- one client of a run from many (--clients);
                                              -- NULL for their aggregate and for one machine
           x.rw              AS rw,
           x.bs              AS bs_bytes,
           x.iodepth         AS iodepth,
           x.numjobs         AS numjobs,
           x.rwmixread       AS rwmixread_pct,
           x.runtime_s       AS runtime_s,
           x.iops            AS iops,
           x.bw_bytes_per_s  AS bw_bytes_per_s,
           x.io_bytes        AS io_bytes,
           x.total_ios       AS total_ios,
           x.lat_mean_us     AS lat_mean_us,
           x.clat_mean_us    AS clat_mean_us,
           x.slat_mean_us    AS slat_mean_us,
           x.lat_p50_us      AS lat_p50_us,
           x.lat_p90_us      AS lat_p90_us,
           x.lat_p99_us      AS lat_p99_us,
           x.lat_p999_us     AS lat_p999_us,
           x.lat_max_us      AS lat_max_us,
           x.lat_kind        AS lat_kind,
           x.error           AS error,
           x.flags           AS flags_json,
           x.metrics         AS metrics_json
    FROM results x
    JOIN workloads w ON w.id = x.workload_id
    JOIN runs r ON r.id = w.run_id;

-- Workloads that produced no figures, with the tool's reason.
CREATE VIEW failure_list AS
    SELECT r.id          AS run_id,
           r.label       AS label,
           r.started_at  AS started_at,
           w.name        AS workload,
           w.repeat      AS repeat,
           w.error       AS error
    FROM workloads w
    JOIN runs r ON r.id = w.run_id
    WHERE w.status = 'failed';
