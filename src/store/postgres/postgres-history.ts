import { CompiledQuery } from 'kysely';
import {
  changeKind,
  changeTime,
  closedVersionValues,
  closeOpenVersions,
  contentChanged,
  type HistorySpelling,
  historyViewSelect,
  insertVersion,
  raw,
  sinceLiteral,
  viewName,
} from '../history/history-sql.js';
import type { HistorySql } from '../history-dialect.js';
import { historyTriggerName } from '../history-names.js';
import { quote } from '../upsert-sql.js';

const spelling: HistorySpelling = {
  greatest: 'greatest',
  timestamp: (iso) => `${sinceLiteral(iso)}::timestamptz`,
  nullTimestamp: 'NULL::timestamptz',
  nullRun: 'NULL::bigint',
};

/** The run writing the current transaction: a setting local to it (`set_config(..., true)`). */
const runSetting = 'tms_sync.run';
const currentRun = `nullif(current_setting('${runSetting}', true), '')::bigint`;

/**
 * PostgreSQL's history trigger: one BEFORE UPDATE function per table, which appends the closed
 * version and sets the open version's bookkeeping on NEW (no second write). Inserts pay nothing
 * but the run column's default.
 */
export const postgresHistory: HistorySql = {
  bookkeeping: () => [],
  addBookkeeping: (table, missing) =>
    missing.flatMap((column) => {
      const name = quote(table.name);
      if (column === 'history_change')
        return [raw(`ALTER TABLE ${name} ADD COLUMN "history_change" text NOT NULL DEFAULT 'insert'`)];
      if (column === 'history_run')
        // Added without a default, then given one: rows already stored keep NULL, no rewrite.
        return [
          raw(`ALTER TABLE ${name} ADD COLUMN "history_run" bigint`),
          raw(`ALTER TABLE ${name} ALTER COLUMN "history_run" SET DEFAULT ${currentRun}`),
        ];
      return [raw(`ALTER TABLE ${name} ADD COLUMN "history_from" timestamptz`)];
    }),
  define(table, since) {
    const fn = quote(historyTriggerName(table.name, 'fn'));
    const trigger = quote(historyTriggerName(table.name, 'upd'));
    const began = `coalesce(OLD."history_from", OLD."deleted_at", OLD."synced_at")`;
    const at = `greatest(${changeTime()}, ${began}, ${spelling.timestamp(since)})`;
    return [
      raw(`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $history$
DECLARE
  at timestamptz;
BEGIN
  IF ${contentChanged('IS DISTINCT FROM')} THEN
    at := ${at};
    ${insertVersion(table)} VALUES (${closedVersionValues(table, since, 'at', spelling).join(', ')});
    NEW."history_from" := at;
    NEW."history_change" := ${changeKind()};
    NEW."history_run" := ${currentRun};
  ELSIF NEW."history_from" IS NULL AND NEW."deleted_at" IS NULL AND OLD."deleted_at" IS NULL
    AND OLD."synced_at" IS DISTINCT FROM NEW."synced_at" THEN
    -- A rewrite of the same content moves synced_at: a row never versioned keeps its start.
    NEW."history_from" := OLD."synced_at";
  END IF;
  RETURN NEW;
END
$history$`),
      raw(`DROP TRIGGER IF EXISTS ${trigger} ON ${quote(table.name)}`),
      raw(
        `CREATE TRIGGER ${trigger} BEFORE UPDATE ON ${quote(table.name)} FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
      ),
      raw(`CREATE OR REPLACE VIEW ${viewName(table)} AS ${historyViewSelect(table, since, spelling)}`),
    ];
  },
  undefine: (table, since, now) => [
    raw(closeOpenVersions(table, since, now, spelling)),
    raw(`DROP TRIGGER IF EXISTS ${quote(historyTriggerName(table.name, 'upd'))} ON ${quote(table.name)}`),
    raw(`CREATE OR REPLACE VIEW ${viewName(table)} AS ${historyViewSelect(table, null, spelling)}`),
  ],
  runContext: (runId) => [
    CompiledQuery.raw(`SELECT set_config('${runSetting}', $1, true)`, [runId === null ? '' : String(runId)]),
  ],
  endContext: () => [],
};
