import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteThread } from '../../src/store/sqlite/sqlite-messages.js';
import { startSqliteThread } from '../../src/store/sqlite/sqlite-thread.js';

// Statements made outside a transaction may run on the calling thread's own connection (a round
// trip to the SQLite thread costs more than they do); a write there must never wait for the lock
// nor overtake a statement sent to the thread before it.
describe("the SQLite thread's caller's own connection", () => {
  let dir: string;
  let path: string;
  let thread: SqliteThread;
  const rows = async () =>
    ((await thread.query('select id, name from runs order by id', [], true)) as { rows: unknown[] }).rows;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tms-own-connection-'));
    path = join(dir, 'store.sqlite');
    thread = startSqliteThread({ path, busyTimeoutMs: 5000 });
    await thread.query('create table runs (id integer primary key autoincrement, name text not null)', []);
    await thread.started();
  });
  afterEach(async () => {
    await thread.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a write to the thread while another process holds the lock, and the caller keeps running', async () => {
    const other = new Database(path);
    other.exec('begin immediate');
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 10);
    try {
      const started = performance.now();
      const written = thread.query('insert into runs (name) values (?)', ['while locked'], true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      other.exec('commit');
      await written;
      expect(performance.now() - started).toBeLessThan(3000);
      // Had the write waited for the lock on this thread, no timer would have fired meanwhile.
      expect(ticks).toBeGreaterThanOrEqual(5);
    } finally {
      clearInterval(ticking);
      other.close();
    }
    expect(await rows()).toEqual([{ id: 1, name: 'while locked' }]);
  });

  it('never lets a write overtake one sent to the thread before it', async () => {
    const first = thread.query('insert into runs (name) values (?)', ['sent first'], false);
    const second = thread.query('insert into runs (name) values (?)', ['sent second'], true);
    await Promise.all([first, second]);
    expect(await rows()).toEqual([
      { id: 1, name: 'sent first' },
      { id: 2, name: 'sent second' },
    ]);
  });

  it('has the thread copy the WAL back as writes made here pile up: the WAL stays bounded', async () => {
    await thread.query('create index runs_name on runs (name)', []);
    for (let i = 0; i < 4000; i++) {
      await thread.query('insert into runs (name) values (?)', [`run ${i} ${'x'.repeat(200)}`], true);
    }
    await thread.query('select 1', []);
    // Without a checkpoint each write leaves two pages or more in the WAL: 4,000 writes ~ 33 MB.
    expect(statSync(`${path}-wal`).size).toBeLessThan(12 * 1024 * 1024);
    expect(await thread.query('select count(*) as n from runs', [], true)).toEqual({ rows: [{ n: 4000 }] });
  });

  it('answers a write made here as the thread would: its changes and the new row id', async () => {
    await thread.query('insert into runs (name) values (?)', ['one'], true);
    const result = await thread.query('insert into runs (name) values (?)', ['two'], true);
    expect(result).toEqual({ changes: 1, lastInsertRowid: 2 });
    const returned = await thread.query('insert into runs (name) values (?) returning id', ['three'], true);
    expect(returned).toEqual({ rows: [{ id: 3 }] });
  });
});
