import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamTruth } from '../../src/sim/stream-truth.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { checkCommand } from '../../src/write-back/admit-command.js';
import { dialects } from '../store/store-fixture.js';
import { type SyncSetup, startSyncSetup } from '../support/sync-setup.js';

// Every SQL example of the README, run on both dialects against a store synced
// from the simulator, answers what the simulator's truth says, to the cent and without a row lost.

type Row = Record<string, unknown>;
type Check = (rows: Row[], truth: Truths) => void;
interface Truths {
  readonly now: StreamTruth;
  /** The truth when the first sync ended (before the changes), for the history example. */
  readonly before: StreamTruth;
}

const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const examples = [...readme.matchAll(/```sql\n([\s\S]*?)```/g)]
  .flatMap((block) => block[1]!.split(/;\s*(?:\n|$)/))
  .map((statement) => statement.trim())
  .filter((statement) => statement.replace(/--.*$/gm, '').trim() !== '');
/** The moment the README's history example asks about, replaced by one between the two syncs. */
const readmeMoment = '2026-10-31T23:59:59.999Z';

/** Cents of an amount the simulator sends with at most two decimals: exact for such values. */
const cents = (value: unknown) => Math.round(Number(value) * 100);
/**
 * Cents of an answer, when it is exactly an amount to the cent: a float sum a hair off
 * (`8493765.33000001`) stays as it is, so it cannot equal the truth's cents.
 */
const answeredCents = (value: unknown) => {
  const amount = Number(value);
  return cents(amount) / 100 === amount ? cents(amount) : amount;
};
const records = (truth: StreamTruth, stream: string) =>
  Object.values(truth[stream] ?? {}).flatMap((scope) => scope.records as Row[]);
const get = (record: Row, path: string) =>
  path.split('.').reduce<unknown>((value, step) => (value as Row | null)?.[step], record);
const grouped = <T>(items: T[], keyOf: (item: T) => string, fold: (group: T[]) => Row) => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return Object.fromEntries([...groups].map(([key, group]) => [key, fold(group)]));
};

const openInvoices: Check = (rows, { now }) => {
  const clients = new Map(records(now, 'clients').map((client) => [String(client.id), client]));
  const softDeleted = new Set(now.clients?.['']?.deletedIds ?? []);
  const open = records(now, 'invoices').filter(
    (invoice) =>
      invoice.status === 'finalized' && cents(invoice.paidAmount) < cents(get(invoice, 'totals.gross')),
  );
  expect(open.length).toBeGreaterThan(0);
  const expected = grouped(
    open,
    (invoice) => `${invoice.clientId} ${invoice.currency}`,
    (group) => ({
      count: group.length,
      cents: group.reduce(
        (sum, invoice) => sum + cents(get(invoice, 'totals.gross')) - cents(invoice.paidAmount),
        0,
      ),
    }),
  );
  const answered = Object.fromEntries(
    rows.map((row) => [
      `${row.client_id} ${row.currency}`,
      { count: Number(row.open_invoices), cents: answeredCents(row.open_amount) },
    ]),
  );
  expect(answered).toEqual(expected);
  for (const row of rows) {
    const client = clients.get(String(row.client_id));
    if (client) expect([row.client, Boolean(row.client_deleted)]).toEqual([client.name, false]);
    if (softDeleted.has(String(row.client_id))) expect(Boolean(row.client_deleted)).toBe(true);
  }
  expect(rows.map((row) => cents(row.open_amount))).toEqual(
    rows.map((row) => cents(row.open_amount)).sort((a, b) => b - a),
  );
};

const payments: Check = (rows, { now }) => {
  const currencyOf = new Map(
    records(now, 'invoices').map((invoice) => [String(invoice.id), invoice.currency]),
  );
  const received = Object.entries(now.invoice_payments ?? {}).flatMap(([invoice, scope]) =>
    (scope.records as Row[]).map((payment) => ({
      currency: currencyOf.get(invoice),
      amount: payment.amount,
    })),
  );
  expect(received.length).toBeGreaterThan(0);
  const expected = grouped(
    received,
    (payment) => String(payment.currency),
    (group) => ({
      count: group.length,
      cents: group.reduce((sum, payment) => sum + cents(payment.amount), 0),
    }),
  );
  const answered = Object.fromEntries(
    rows.map((row) => [
      String(row.currency),
      { count: Number(row.payments), cents: answeredCents(row.received) },
    ]),
  );
  expect(answered).toEqual(expected);
};

const tasksPerCity: Check = (rows, { now }) => {
  const trailers = new Set(records(now, 'trailers').map((trailer) => String(trailer.id)));
  const tasks = records(now, 'tasks');
  expect(tasks.length).toBeGreaterThan(0);
  const expected = grouped(
    tasks,
    (task) => String(get(task, 'address.city') ?? null),
    (group) => ({
      tasks: group.length,
      withTrailer: group.filter((task) => task.trailerId != null && trailers.has(String(task.trailerId)))
        .length,
      cents: group.reduce((sum, task) => sum + cents(task.cashOnDelivery), 0),
    }),
  );
  const answered = Object.fromEntries(
    rows.map((row) => [
      String(row.city ?? null),
      {
        tasks: Number(row.tasks),
        withTrailer: Number(row.with_trailer),
        cents: answeredCents(row.cash_on_delivery),
      },
    ]),
  );
  expect(answered).toEqual(expected);
};

const openAtTheMoment: Check = (rows, { before }) => {
  const expected = records(before, 'invoices').map((invoice) => ({
    id: String(invoice.id),
    status: invoice.status,
    outstanding: cents(get(invoice, 'totals.gross')) - cents(invoice.paidAmount),
  }));
  const answered = rows.map((row) => ({
    id: row.id,
    status: row.status,
    outstanding: answeredCents(row.outstanding),
  }));
  const byId = (a: { id: unknown }, b: { id: unknown }) => String(a.id).localeCompare(String(b.id));
  expect(answered.sort(byId)).toEqual(expected.sort(byId));
};

/** Each example by what it reads; an example of the README without a check here fails the test. */
const checks: Array<[RegExp, Check | 'insert']> = [
  [/FROM invoices_live i LEFT JOIN clients c/, openInvoices],
  [/FROM invoice_payments_live p LEFT JOIN invoices i/, payments],
  [/FROM tasks_live t LEFT JOIN trailers_live tr/, tasksPerCity],
  [/FROM invoices__history/, openAtTheMoment],
  [/^INSERT INTO tms_commands/m, 'insert'],
];

describe.each(dialects)('the README SQL examples on $name', ({ fixture: makeFixture }) => {
  const fixture = makeFixture();
  let url: string;
  let store: Store;
  let setup: SyncSetup;
  let truths: Truths;
  let moment: string;

  beforeAll(async () => {
    url = await fixture.freshUrl();
    store = await openStore(url, { history: ['invoices'] });
    const history = { include: undefined, exclude: [], history: ['invoices'] };
    setup = await startSyncSetup(
      store,
      { invoices: 300, clients: 60, operators: 2, seed: 32 },
      { streams: history },
    );
    await setup.engine.run([]);
    const before = await setup.admin.truth();
    await new Promise((resolve) => setTimeout(resolve, 20));
    moment = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await setup.admin.applyChanges(80, 7);
    const runs = await setup.engine.run([], { reconcile: true });
    expect(runs.filter((run) => run.result !== 'succeeded')).toEqual([]);
    truths = { before, now: await setup.admin.truth() };
  }, 120_000);
  afterAll(async () => {
    await setup?.close();
    await store?.close();
    await fixture.cleanup();
  });

  const query = async (text: string): Promise<Row[]> => {
    if (fixture.dialect === 'postgres') return fixture.query<Row>(url, text);
    const db = new BetterSqlite3(url.slice('sqlite:'.length));
    try {
      const statement = db.prepare(text);
      if (statement.reader) return statement.all() as Row[];
      statement.run();
      return [];
    } finally {
      db.close();
    }
  };

  it('has examples, each with a check', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const example of examples)
      expect(
        checks.some(([pattern]) => pattern.test(example)),
        example,
      ).toBe(true);
  });

  it.each(examples.map((example) => [example.split('\n').find((line) => !line.startsWith('--')), example]))(
    'answers %s as the truth says',
    async (_title, example) => {
      const [, check] = checks.find(([pattern]) => pattern.test(example))!;
      if (check === 'insert') {
        await query(example);
        const [command] = await store.commands.list({ limit: 1 });
        expect(checkCommand(command!, command!.id)).toMatchObject({ ok: true });
        return;
      }
      // An inner join drops the rows whose other side is gone, without a word.
      expect(example).not.toMatch(/(?<!LEFT )\bJOIN\b/);
      check(await query(example.replaceAll(readmeMoment, moment)), truths);
    },
  );
});
