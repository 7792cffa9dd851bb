import { expect, it } from 'vitest';
import { streams } from '../../config/streams.js';
import { openStore } from '../../src/store/open-store.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, later, now } from './records.js';
import { commitRecords, inRun } from './run-pages.js';

const viewNames = {
  sqlite: "select name from sqlite_master where type = 'view'",
  postgres: "select viewname as name from pg_views where schemaname = 'public'",
};

describeOnEachDialect('live views', (fixture) => {
  const store = useStore(fixture);

  it('every stream has a view of its rows that exist upstream', async () => {
    const url = await fixture.url();
    const views = (await fixture.query<{ name: string }>(url, viewNames[fixture.dialect])).map((v) => v.name);
    expect(views).toEqual(expect.arrayContaining(Object.keys(streams).map((stream) => `${stream}_live`)));
    await commitRecords(store(), 'invoices', {
      records: keyed([invoice('a', 1), invoice('b', 2), invoice('c', 3)]),
    });
    const seen = ['a', 'c'];
    await inRun(
      store(),
      'invoices',
      (run) => run.markMissing({ seenIds: seen, reason: 'reconcile_missing' }),
      {
        now: later,
      },
    );
    const live = await fixture.query<{ id: string }>(url, 'select id from invoices_live order by id');
    expect(live.map((row) => row.id)).toEqual(['a', 'c']);
  });

  it("a live view has the columns writes add to its table, and every row's values in them", async () => {
    const url = await fixture.url();
    await commitRecords(store(), 'invoices', { records: keyed([invoice('a', 1)]) });
    await commitRecords(store(), 'invoices', {
      records: keyed([{ ...invoice('d', 4), paidAmount: 12.5, note: 'new field' }]),
    });
    const rows = await fixture.query<Record<string, unknown>>(
      url,
      'select id, totals__gross, paid_amount, note from invoices_live order by id',
    );
    expect(
      rows.map((row) => [
        row.id,
        Number(row.totals__gross),
        row.paid_amount && Number(row.paid_amount),
        row.note,
      ]),
    ).toEqual([
      ['a', 121, null, null],
      ['d', 121, 12.5, 'new field'],
    ]);
  });
});

describeOnEachDialect('live views of an existing store', (fixture) => {
  it('a store made before the live views gets one per stream table when it migrates', async () => {
    const url = await fixture.freshUrl();
    const first = await openStore(url);
    await commitRecords(first, 'invoices', { records: keyed([invoice('a', 1)]) }, { now });
    await first.close();
    for (const stream of Object.keys(streams)) await fixture.query(url, `drop view "${stream}_live"`);
    await fixture.query(url, `delete from kysely_migration where name = '0007-live-views'`);
    const upgraded = await openStore(url, { migrate: false });
    expect((await upgraded.migrate()).applied).toEqual(['0007-live-views']);
    await upgraded.close();
    const live = await fixture.query<{ id: string; totals__gross: unknown }>(
      url,
      'select id, totals__gross from invoices_live',
    );
    expect(live.map((row) => [row.id, Number(row.totals__gross)])).toEqual([['a', 121]]);
  });
});
