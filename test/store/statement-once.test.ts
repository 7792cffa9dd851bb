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

it('takes a list of values (a multi-row insert), compiled once per shape', async () => {
  const insert = statementOnce((k, values: unknown[]) => {
    const rows = [];
    for (let at = 0; at < values.length; at += 2) rows.push({ stream: values[at], version: values[at + 1] });
    return k.insertInto('sync_state').values(rows as never);
  });
  await insert(db, ['c', 3, 'd', 4], '2');
  await insert(db, ['e', 5, 'f', 6], '2');
  await insert(db, ['g', 7], '1');
  const rows = await db
    .selectFrom('sync_state')
    .select(['stream', 'version'])
    .where('version', '>', 2)
    .execute();
  expect(rows.map((row) => `${row.stream}${row.version}`).sort()).toEqual(['c3', 'd4', 'e5', 'f6', 'g7']);
});
