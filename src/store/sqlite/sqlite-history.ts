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
import type { StreamTable } from '../stream-tables.js';
import { quote } from '../upsert-sql.js';

const spelling: HistorySpelling = {
  greatest: 'max',
  timestamp: sinceLiteral,
  nullTimestamp: 'NULL',
  nullRun: 'NULL',
};

/** The run writing the current transaction: one row, set first and cleared last by the writer (SQLite has one writer at a time). */
const context = 'history_context';
const currentRun = `(SELECT "run" FROM ${context})`;

/**
 * SQLite's history triggers. SQLite cannot change NEW in a trigger, so the open version's
 * bookkeeping is written by an UPDATE of the row inside the AFTER trigger (by rowid, the row just
 * written): paid on changes only. Inserts pay nothing: the upsert writes the run
 * (sqlite-upsert.ts), the other columns default.
 */
export const sqliteHistory: HistorySql = {
  bookkeeping: () => [
    raw(`CREATE TABLE IF NOT EXISTS ${context} ("one" integer PRIMARY KEY CHECK ("one" = 1), "run" integer)`),
    raw(`INSERT OR IGNORE INTO ${context} ("one", "run") VALUES (1, NULL)`),
  ],
  addBookkeeping: (table, missing) =>
    missing.map((column) =>
      raw(
        `ALTER TABLE ${quote(table.name)} ADD COLUMN ${quote(column)} ${
          column === 'history_change'
            ? `text NOT NULL DEFAULT 'insert'`
            : column === 'history_run'
              ? 'integer'
              : 'text'
        }`,
      ),
    ),
  define(table, since) {
    const name = quote(table.name);
    const trigger = (what: 'upd' | 'pin') => quote(historyTriggerName(table.name, what));
    const began = `coalesce(OLD."history_from", OLD."deleted_at", OLD."synced_at")`;
    const at = `max(${changeTime()}, max(${began}, ${sinceLiteral(since)}))`;
    return [
      ...dropTriggers(table),
      raw(`CREATE TRIGGER ${trigger('upd')} AFTER UPDATE OF "data", "deleted_at" ON ${name}
WHEN ${contentChanged('IS NOT')}
BEGIN
  ${insertVersion(table)} VALUES (${closedVersionValues(table, since, at, spelling).join(', ')});
  UPDATE ${name} SET "history_from" = ${at}, "history_change" = ${changeKind()}, "history_run" = ${currentRun}
    WHERE rowid = NEW.rowid;
END`),
      // A rewrite of the same content moves synced_at: a row never versioned keeps its start.
      raw(`CREATE TRIGGER ${trigger('pin')} AFTER UPDATE OF "synced_at" ON ${name}
WHEN NEW."history_from" IS NULL AND OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NULL
  AND OLD."synced_at" IS NOT NEW."synced_at" AND OLD."data" IS NEW."data"
BEGIN
  UPDATE ${name} SET "history_from" = OLD."synced_at" WHERE rowid = NEW.rowid;
END`),
      ...view(table, since),
    ];
  },
  undefine: (table, since, now) => [
    raw(closeOpenVersions(table, since, now, spelling)),
    ...dropTriggers(table),
    ...view(table, null),
  ],
  runContext: (runId) => [CompiledQuery.raw(`UPDATE ${context} SET "run" = ?`, [runId])],
  endContext: () => [raw(`UPDATE ${context} SET "run" = NULL`)],
};

function dropTriggers(table: StreamTable): CompiledQuery[] {
  return (['upd', 'pin'] as const).map((what) =>
    raw(`DROP TRIGGER IF EXISTS ${quote(historyTriggerName(table.name, what))}`),
  );
}

/** SQLite's views are not replaced: dropped and created with the current columns. */
function view(table: StreamTable, since: string | null): CompiledQuery[] {
  return [
    raw(`DROP VIEW IF EXISTS ${viewName(table)}`),
    raw(`CREATE VIEW ${viewName(table)} AS ${historyViewSelect(table, since, spelling)}`),
  ];
}
