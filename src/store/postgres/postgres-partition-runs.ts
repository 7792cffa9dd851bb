/**
 * PostgreSQL's trigger keeping `partition_runs` (partition-runs-migration.ts): a run's insert makes
 * it its partition's latest run (and, recorded whole once it succeeded, its latest success), its
 * update to `succeeded` the partition's latest success, and a deleted run (run-retention.ts, or by hand)
 * hands both back to the runs that remain: the newest of them, and the end of the newest that
 * succeeded (found walking back `sync_runs_stream`, the table's one index besides its key).
 */
export const postgresPartitionRuns: readonly string[] = [
  `CREATE FUNCTION tms_partition_runs() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO partition_runs (stream, partition, last_run_id, last_success_at)
        VALUES (NEW.stream, NEW.partition, NEW.id,
          CASE WHEN NEW.result = 'succeeded' THEN NEW.finished_at END)
        ON CONFLICT (stream, partition)
        DO UPDATE SET last_run_id = greatest(partition_runs.last_run_id, excluded.last_run_id),
          last_success_at = greatest(partition_runs.last_success_at, excluded.last_success_at);
    ELSIF TG_OP = 'DELETE' THEN
      UPDATE partition_runs SET
        last_run_id = coalesce(
          (SELECT max(id) FROM sync_runs WHERE stream = OLD.stream AND partition = OLD.partition), 0),
        last_success_at = (SELECT finished_at FROM sync_runs
          WHERE stream = OLD.stream AND partition = OLD.partition AND result = 'succeeded'
          ORDER BY id DESC LIMIT 1)
        WHERE stream = OLD.stream AND partition = OLD.partition;
      DELETE FROM partition_runs WHERE stream = OLD.stream AND partition = OLD.partition AND last_run_id = 0;
    ELSIF NEW.result = 'succeeded' AND OLD.result IS DISTINCT FROM 'succeeded' THEN
      UPDATE partition_runs SET last_success_at = greatest(last_success_at, NEW.finished_at)
        WHERE stream = NEW.stream AND partition = NEW.partition;
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER sync_runs_partition AFTER INSERT OR DELETE OR UPDATE OF result ON sync_runs
    FOR EACH ROW EXECUTE FUNCTION tms_partition_runs()`,
];

/** Drops what `postgresPartitionRuns` defines, so that a migration can define it again. */
export const postgresDropPartitionRuns: readonly string[] = [
  'DROP TRIGGER IF EXISTS sync_runs_partition ON sync_runs',
  'DROP FUNCTION IF EXISTS tms_partition_runs()',
];
