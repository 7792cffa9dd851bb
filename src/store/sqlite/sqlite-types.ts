import { sql } from 'kysely';
import type { SqlTypes } from '../store-dialect.js';
import { valuesAtFunction } from './sqlite-operations.js';

/** SQLite: timestamps and dates as ISO 8601 text (UTC, so text order is time order), booleans as 0/1. */
export const sqliteTypes: SqlTypes = {
  json: 'text',
  timestamp: 'text',
  bigint: 'integer',
  serialId: { type: 'integer', build: (column) => column.primaryKey().autoIncrement() },
  typed: {
    text: 'text',
    integer: 'integer',
    bigint: 'integer',
    real: 'real',
    number: 'numeric',
    boolean: 'integer',
    timestamp: 'text',
    date: 'text',
    cents: 'integer',
  },
  viewsFixColumns: false,
  // ISO 8601 with milliseconds and Z, like the timestamps the store writes itself.
  currentTimestamp: "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
  encode: (value) => (typeof value === 'boolean' ? Number(value) : value),
  decodeJson: (value) => (typeof value === 'string' ? JSON.parse(value) : null),
  jsonTexts: (json) => sql`(select value from json_each(${json}))`,
  // A function of the connection (sqlite-operations.ts): the records are parsed on the thread. A
  // record held as its JSON text (`storedData`) is given as that text.
  valuesAt: (json, path) =>
    sql`${sql.raw(valuesAtFunction)}(case when ${json} like '"%' then json_extract(${json}, '$') else ${json} end, ${path})`,
};
