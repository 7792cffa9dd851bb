import { CompiledQuery } from 'kysely';
import { historyViewName, versionsTableName } from '../history-names.js';
import type { StreamTable } from '../stream-tables.js';
import { quote } from '../upsert-sql.js';

/** How a dialect spells the few expressions the history SQL needs. */
export interface HistorySpelling {
  /** The larger of two timestamps: `max` (SQLite, scalar), `greatest` (PostgreSQL). */
  readonly greatest: string;
  /** A timestamp literal from an ISO 8601 string (checked by `sinceLiteral`). */
  timestamp(iso: string): string;
  /** NULL as a timestamp (PostgreSQL needs the type in a UNION). */
  readonly nullTimestamp: string;
  /** NULL as a run id. */
  readonly nullRun: string;
}

/** The values of a version, in the order the versions table and the view hold them. */
function versionColumns(table: StreamTable): string[] {
  return [
    'id',
    ...(table.scopeColumn ? [table.scopeColumn] : []),
    'valid_from',
    'valid_to',
    'change',
    'run',
    'data',
    'sequence',
    'deleted_at',
    'deleted_reason',
    ...table.columns.map((column) => column.name),
  ];
}

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** History's start as a literal; only ISO 8601 UTC strings the store made itself are taken. */
export function sinceLiteral(since: string): string {
  if (!iso.test(since)) throw new Error(`history start ${since} is not an ISO 8601 UTC timestamp`);
  return `'${since}'`;
}

/**
 * The open version of a row (`row` names it: `OLD`, or the table), as SQL expressions. A row not
 * versioned since history started ("history starts here", docs/history.md) opens at the start,
 * as an `insert` of no run: history knows nothing before it.
 */
function openVersion(row: string, since: string, spelling: HistorySpelling) {
  const began = `coalesce(${row}."history_from", ${row}."deleted_at", ${row}."synced_at")`;
  const start = spelling.timestamp(since);
  const seeded = `${began} < ${start}`;
  return {
    from: `${spelling.greatest}(${began}, ${start})`,
    change: `CASE WHEN ${seeded} THEN 'insert' ELSE ${row}."history_change" END`,
    run: `CASE WHEN ${seeded} THEN ${spelling.nullRun} ELSE ${row}."history_run" END`,
  };
}

/** When the change from OLD to NEW happened: a deletion's time, else the write's (the page time). */
export function changeTime(): string {
  return `CASE WHEN OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL THEN NEW."deleted_at" ELSE NEW."synced_at" END`;
}

/** Which change NEW is to OLD, when its content changed. */
export function changeKind(): string {
  return `CASE WHEN OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL THEN 'delete' WHEN OLD."deleted_at" IS NOT NULL AND NEW."deleted_at" IS NULL THEN 'restore' ELSE 'update' END`;
}

/** The content changed: a version is written (a rewrite of the same content, a new sequence or reason, is none). */
export function contentChanged(distinct: 'IS NOT' | 'IS DISTINCT FROM'): string {
  return `OLD."data" ${distinct} NEW."data" OR (OLD."deleted_at" IS NULL) <> (NEW."deleted_at" IS NULL)`;
}

/** The row OLD as a closed version ending at `until`: values in `versionColumns` order. */
export function closedVersionValues(
  table: StreamTable,
  since: string,
  until: string,
  spelling: HistorySpelling,
): string[] {
  const open = openVersion('OLD', since, spelling);
  return versionColumns(table).map((column) => {
    if (column === 'valid_from') return open.from;
    if (column === 'valid_to') return until;
    if (column === 'change') return open.change;
    if (column === 'run') return open.run;
    return `OLD.${quote(column)}`;
  });
}

/** `INSERT INTO <stream>__versions (...)`, the column list in `versionColumns` order. */
export function insertVersion(table: StreamTable): string {
  return `INSERT INTO ${quote(versionsTableName(table.name))} (${versionColumns(table).map(quote).join(', ')})`;
}

/**
 * The history view's SELECT: the closed versions, and while history is on (`since`), the open
 * version of every current row, deleted ones included (their open version is the deletion).
 */
export function historyViewSelect(
  table: StreamTable,
  since: string | null,
  spelling: HistorySpelling,
): string {
  const columns = versionColumns(table);
  const closed = `SELECT ${columns.map(quote).join(', ')} FROM ${quote(versionsTableName(table.name))}`;
  if (since === null) return closed;
  const open = openVersion(quote(table.name), since, spelling);
  const values = columns.map((column) => {
    if (column === 'valid_from') return `${open.from} AS "valid_from"`;
    if (column === 'valid_to') return `${spelling.nullTimestamp} AS "valid_to"`;
    if (column === 'change') return `${open.change} AS "change"`;
    if (column === 'run') return `${open.run} AS "run"`;
    return quote(column);
  });
  return `${closed}\nUNION ALL\nSELECT ${values.join(', ')} FROM ${quote(table.name)}`;
}

export function raw(text: string): CompiledQuery {
  return CompiledQuery.raw(text);
}

export function viewName(table: StreamTable): string {
  return quote(historyViewName(table.name));
}

/** Closes the open version of every row at `now` (history switched off): the versions table then holds all. */
export function closeOpenVersions(
  table: StreamTable,
  since: string,
  now: string,
  spelling: HistorySpelling,
): string {
  const open = openVersion(quote(table.name), since, spelling);
  const columns = versionColumns(table);
  const values = columns.map((column) => {
    if (column === 'valid_from') return open.from;
    if (column === 'valid_to') return `${spelling.greatest}(${spelling.timestamp(now)}, ${open.from})`;
    if (column === 'change') return open.change;
    if (column === 'run') return open.run;
    return quote(column);
  });
  return `${insertVersion(table)} SELECT ${values.join(', ')} FROM ${quote(table.name)}`;
}
