import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import type { StoreDatabase } from '../../src/store/database.js';
import { statementOnce } from '../../src/store/statement-once.js';

const db = new Kysely<StoreDatabase>({
  dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }),
});
afterAll(() => db.destroy());

it('runs the statement it compiled once with each call’s values', async () => {
  await db.schema
    .createTable('sync_state')
    .addColumn('stream', 'text')
    .addColumn('version', 'integer')
    .execute();
  await db
    .insertInto('sync_state')
    .values([
      { stream: 'a', version: 1 },
      { stream: 'b', version: 2 },
    ] as never)
    .execute();
  const versionOf = statementOnce((k, at: { stream: string }) =>
    k.selectFrom('sync_state').select('version').where('stream', '=', at.stream).where('version', '>', 0),
  );
  expect((await versionOf(db, { stream: 'b' })).rows).toEqual([{ version: 2 }]);
  expect((await versionOf(db, { stream: 'a' })).rows).toEqual([{ version: 1 }]);
  expect((await versionOf(db, { stream: 'c' })).rows).toEqual([]);
});

it('refuses a statement that does not pass a value on as a parameter', () => {
  const transformed = statementOnce((k, at: { stream: string }) =>
    k.selectFrom('sync_state').select('version').where('stream', '=', at.stream.toUpperCase()),
  );
  expect(() => transformed(db, { stream: 'a' })).toThrow(/stream is not passed on as a parameter/);
});
