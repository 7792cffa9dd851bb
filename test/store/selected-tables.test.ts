import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { now } from './records.js';
import { dialects } from './store-fixture.js';

// The store holds the tables of the selected streams only.

const relations = {
  sqlite: "select name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%'",
  postgres: 'select table_name as name from information_schema.tables where table_schema = current_schema()',
};

describe.each(dialects)('tables of the selected streams on $name', ({ fixture: createFixture }) => {
  const fixture = createFixture();
  const names = async (url: string) =>
    (await fixture.query<{ name: string }>(url, relations[fixture.dialect])).map((row) => row.name).sort();
  const streamRelations = (all: string[]) =>
    all.filter(
      (name) =>
        !/^(sync_|child_|stream_|held_|rejected_|partition_runs|tms_commands|tms_connections|kysely_)/.test(
          name,
        ),
    );

  it('makes the selected streams’ tables and views only; a stream run later gets its table then; none is dropped', async () => {
    let store: Store | undefined;
    try {
      const url = await fixture.freshUrl();
      store = await openStore(url, { streams: ['invoices', 'clients'] });
      expect(streamRelations(await names(url))).toEqual([
        'clients',
        'clients_live',
        'invoices',
        'invoices_live',
      ]);
      expect(await names(url)).toEqual(expect.arrayContaining(['sync_state', 'sync_runs', 'tms_commands']));
      await expect(store.countRows('vehicles')).rejects.toThrow(
        'vehicles: has no table in this store: it was never selected (streams.include) nor run',
      );

      const run = await store.openRun({ stream: 'vehicles', partition: '', trigger: 'cli', now: () => now });
      await run.commitPage({
        records: [{ key: 'V1', sequence: null, data: { id: 'V1' } }],
        state: { strategyState: null },
      });
      await run.flush();
      await run.finish({ result: 'succeeded', error: null });
      expect(await store.countRows('vehicles')).toBe(1);
      expect(streamRelations(await names(url))).toEqual(
        expect.arrayContaining(['vehicles', 'vehicles_live']),
      );
      await store.close();

      // Selected no longer: the tables stay, and are kept current.
      store = await openStore(url, { streams: ['invoices'] });
      expect(streamRelations(await names(url))).toEqual([
        'clients',
        'clients_live',
        'invoices',
        'invoices_live',
        'vehicles',
        'vehicles_live',
      ]);
      expect(await store.countRows('vehicles')).toBe(1);
    } finally {
      await store?.close();
      await fixture.cleanup();
    }
  });
});
