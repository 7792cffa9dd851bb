/**
 * SQLite's triggers keeping `partition_runs` (partition-runs-migration.ts): a run's insert makes it
 * its partition's latest run (and, recorded whole once it succeeded, its latest success), its
 * update to `succeeded` the partition's latest success, and a deleted run (run-retention.ts, or by hand)
 * hands both back to the runs that remain.
 */
export const sqlitePartitionRuns: readonly string[] = [
  `CREATE TRIGGER sync_runs_latest AFTER INSERT ON sync_runs BEGIN
    INSERT INTO partition_runs (stream, partition, last_run_id, last_success_at)
      VALUES (NEW.stream, NEW.partition, NEW.id,
        CASE WHEN NEW.result = 'succeeded' THEN NEW.finished_at END)
      ON CONFLICT (stream, partition) DO UPDATE SET
        last_run_id = max(last_run_id, excluded.last_run_id),
        last_success_at = CASE
          WHEN excluded.last_success_at IS NOT NULL
            AND (last_success_at IS NULL OR last_success_at < excluded.last_success_at)
          THEN excluded.last_success_at ELSE last_success_at END;
  END`,
  `CREATE TRIGGER sync_runs_succeeded AFTER UPDATE OF result ON sync_runs
    WHEN NEW.result = 'succeeded' AND OLD.result IS NOT 'succeeded' BEGIN
    UPDATE partition_runs SET last_success_at = NEW.finished_at
      WHERE stream = NEW.stream AND partition = NEW.partition
        AND (last_success_at IS NULL OR last_success_at < NEW.finished_at);
  END`,
  `CREATE TRIGGER sync_runs_forgotten AFTER DELETE ON sync_runs BEGIN
    UPDATE partition_runs SET
      last_run_id = coalesce(
        (SELECT max(id) FROM sync_runs WHERE stream = OLD.stream AND partition = OLD.partition), 0),
      last_success_at = (SELECT finished_at FROM sync_runs
        WHERE stream = OLD.stream AND partition = OLD.partition AND result = 'succeeded'
        ORDER BY id DESC LIMIT 1)
      WHERE stream = OLD.stream AND partition = OLD.partition;
    DELETE FROM partition_runs WHERE stream = OLD.stream AND partition = OLD.partition AND last_run_id = 0;
  END`,
];

/** Drops what `sqlitePartitionRuns` defines, so that a migration can define it again. */
export const sqliteDropPartitionRuns: readonly string[] = [
  'DROP TRIGGER IF EXISTS sync_runs_latest',
  'DROP TRIGGER IF EXISTS sync_runs_succeeded',
  'DROP TRIGGER IF EXISTS sync_runs_forgotten',
];
