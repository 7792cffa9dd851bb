import { sql } from 'kysely';
import type { SqlTypes } from '../store-dialect.js';

/** PostgreSQL: JSONB data, timestamptz, native booleans and dates, bigint sequences and ids. */
export const postgresTypes: SqlTypes = {
  json: 'jsonb',
  timestamp: 'timestamptz',
  bigint: 'bigint',
  serialId: { type: 'bigint', build: (column) => column.primaryKey().generatedByDefaultAsIdentity() },
  typed: {
    text: 'text',
    integer: 'integer',
    bigint: 'bigint',
    real: 'double precision',
    number: 'numeric',
    boolean: 'boolean',
    timestamp: 'timestamptz',
    date: 'date',
    cents: 'bigint',
  },
  viewsFixColumns: true,
  currentTimestamp: 'now()',
  encode: (value) => value,
  decodeJson: (value) => value ?? null,
  jsonTexts: (json) => sql`(select jsonb_array_elements_text(${json}::jsonb))`,
  onlyMember: (json, key) =>
    sql`case when jsonb_typeof(${json}) = 'object' then jsonb_build_object(${key}::text, ${json} -> ${key}::text) else ${json} end`,
};
