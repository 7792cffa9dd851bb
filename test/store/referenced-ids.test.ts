import fc from 'fast-check';
import { expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { idsOfText, passIdsOf } from '../../src/store/pass-references.js';
import type { StoreRecord } from '../../src/store/store.js';
import { valuesAtPath } from '../../src/store/values-at-path.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { keyed, now, task } from './records.js';
import { commitRecords, openTestRun } from './run-pages.js';

/** A value where the path may lead: ids of any JSON type, arrays at any level, objects missing the step. */
const leaf = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -5, max: 50 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const reference = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.record({ id: tie('value') }, { requiredKeys: [] }),
  ),
})).value;

describeOnEachDialect('the ids a stream references', (fixture) => {
  const store = useStore(fixture);
  const write = (scope: string, records: StoreRecord[], deletedUpstream = false) =>
    commitRecords(store(), 'tasks', { scope, records, deletedUpstream }, { partition: scope, now });
  /** The goods' run, which reads the ids its operator's tasks reference. */
  const reader = () => openTestRun(store(), 'goods', { dryRun: true });
  /** A task's record edited by hand, its partition's state left as it was. */
  const editTask = async (id: string, from: string, to: string) => {
    const sql =
      fixture.dialect === 'postgres'
        ? 'update tasks set data = replace(data::text, $1, $2)::jsonb where id = $3'
        : 'update tasks set data = replace(data, ?, ?) where id = ?';
    await fixture.query(await fixture.url(), sql, [from, to, id]);
  };
  /** The records written to a scope of their own read back at `path`: what valuesAtPath finds in them. */
  const expectValuesAtPath = async (path: string, records: Record<string, unknown>[]) => {
    const scope = `s${Math.random().toString(36).slice(2)}`;
    await write(scope, keyed(records));
    const read = valuesAtPath(path);
    const expected = [...new Set(records.flatMap((record) => read(record)))].sort();
    expect(await (await reader()).referencedIds('tasks', path, scope)).toEqual(expected);
  };

  it('are the distinct values at the path of the live rows of the scope, sorted', async () => {
    const op1 = keyed([
      task('t1', { goods: [{ id: 'g2' }, { id: 7 }, { id: '' }, { id: 1.5 }], order: { id: 'o1' } }),
      task('t2', { goods: [[{ id: 'g1' }], { id: 'g2' }], order: 'not an object' }),
      task('t3', { goods: { id: 'g9' } }),
      // Held as its JSON text (a string holding U+0000 cannot be in jsonb): its ids count the same.
      task('t6', { note: 'a\u0000b', goods: [{ id: 'g0' }] }),
    ]);
    await write('op1', op1);
    await write('op2', keyed([task('t5', { goods: [{ id: 'other' }] })]));
    await write('op1', keyed([task('t4', { goods: [{ id: 'gone' }] })]), true);
    const run = await reader();
    expect(await run.referencedIds('tasks', 'goods.id', 'op1')).toEqual(['7', 'g0', 'g1', 'g2', 'g9']);
    expect(await run.referencedIds('tasks', 'order.id', 'op1')).toEqual(['o1']);
    expect(await run.referencedIds('tasks', 'id', 'op2')).toEqual(['t5']);
    // The key field: read from the rows' ids, the record held as text among them.
    expect(await run.referencedIds('tasks', 'id', 'op1')).toEqual(['t1', 't2', 't3', 't6']);
  });

  it("come from an unchanged pass while its partition's state stays at that version, from the rows once it moves", async () => {
    const before = keyed([
      task('t1', { goods: [{ id: 'g1' }], client: { id: 'c1' } }),
      task('t2', { goods: { id: 'g2' } }),
    ]);
    await write('op1', before);
    const tasks = await openTestRun(store(), 'tasks', { partition: 'op1' });
    expect(await tasks.keepUnchangedPass({ scope: 'op1', records: before })).toBe(true);
    await tasks.finish({ result: 'succeeded', error: null });
    expect(await (await reader()).referencedIds('tasks', 'goods.id', 'op1')).toEqual(['g1', 'g2']);
    expect(await (await reader()).referencedIds('tasks', 'client.id', 'op1')).toEqual(['c1']);

    // Changed under the store's verbs, the partition's state left as it was: the pass still says.
    const url = await fixture.url();
    const edit =
      fixture.dialect === 'postgres'
        ? "update tasks set data = replace(data::text, 'g2', 'g3')::jsonb where id = 't2'"
        : "update tasks set data = replace(data, 'g2', 'g3') where id = 't2'";
    await fixture.query(url, edit);
    expect(await (await reader()).referencedIds('tasks', 'goods.id', 'op1')).toEqual(['g1', 'g2']);

    // A write of the partition by another store (another process) moves its version: read from the rows.
    const other = await openStore(url);
    try {
      await commitRecords(
        other,
        'tasks',
        { scope: 'op1', records: keyed([task('t1', { goods: [{ id: 'g4' }] })]) },
        { partition: 'op1', now },
      );
    } finally {
      await other.close();
    }
    expect(await (await reader()).referencedIds('tasks', 'goods.id', 'op1')).toEqual(['g3', 'g4']);
  });

  it('come from the ids an unchanged pass kept in its state when its answers were not read', async () => {
    const records = keyed([
      task('t1', { goods: [{ id: 'g1' }], client: { id: 'c1' } }),
      task('t2', { goods: { id: 'g2' } }),
    ]);
    await write('op1', records);
    const tasks = await openTestRun(store(), 'tasks', { partition: 'op1' });
    const references = tasks.referencesOf(records)!;
    expect(idsOfText(references['goods.id']!)).toEqual(['g1', 'g2']);
    expect(idsOfText(references['client.id']!)).toEqual(['c1']);
    // One live row more than the pass had records: not kept, nothing remembered.
    expect(await tasks.keepUnchangedAnswers({ scope: 'op1', records: 3, references })).toBe(false);
    expect(await tasks.keepUnchangedAnswers({ scope: 'op1', records: 2, references })).toBe(true);
    await tasks.finish({ result: 'succeeded', error: null });

    // The rows edited by hand, the state left as it was: the kept ids say, not the rows.
    await editTask('t2', 'g2', 'g3');
    expect(await (await reader()).referencedIds('tasks', 'goods.id', 'op1')).toEqual(['g1', 'g2']);
  });

  it('come from a state that kept them as arrays of ids, as states did before they were texts', async () => {
    const records = keyed([task('t1', { goods: [{ id: 'g1' }, { id: 'g2' }] })]);
    await write('op1', records);
    const tasks = await openTestRun(store(), 'tasks', { partition: 'op1' });
    // The state's references as arrays, at every path the tasks are fetched by.
    const asTexts = tasks.referencesOf(records)!;
    const asArrays = Object.fromEntries(
      Object.entries(asTexts).map(([path, text]) => [path, idsOfText(text)]),
    );
    expect(asArrays['goods.id']).toEqual(['g1', 'g2']);
    const references = passIdsOf(asArrays)!;
    expect(await tasks.keepUnchangedAnswers({ scope: 'op1', records: 1, references })).toBe(true);
    await tasks.finish({ result: 'succeeded', error: null });
    await editTask('t1', 'g2', 'g3');
    expect(await (await reader()).referencedIds('tasks', 'goods.id', 'op1')).toEqual(['g1', 'g2']);
  });

  it('are read from the rows when an id holds a line break: no text keeps it', async () => {
    const records = keyed([task('t1', { goods: [{ id: 'g\n1' }, { id: 'g2' }] })]);
    await write('op1', records);
    const tasks = await openTestRun(store(), 'tasks', { partition: 'op1' });
    expect(tasks.referencesOf(records)).toBeUndefined();
    expect(await tasks.keepUnchangedPass({ scope: 'op1', records })).toBe(true);
    await tasks.finish({ result: 'succeeded', error: null });
    expect(await (await reader()).referencedIds('tasks', 'goods.id', 'op1')).toEqual(['g\n1', 'g2']);
  });

  it('at the key field are what valuesAtPath finds, the ids of any spelling', async () => {
    const id = fc.oneof(fc.string({ minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 1e9 }));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(id, { minLength: 1, maxLength: 6, selector: String }), async (ids) => {
        await expectValuesAtPath(
          'id',
          ids.map((value) => ({ ...task('x'), id: value })),
        );
      }),
      { numRuns: 30 },
    );
  });

  it('are what valuesAtPath finds in the records, whatever their shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(reference, { minLength: 1, maxLength: 6 }), async (goods) => {
        await expectValuesAtPath(
          'goods.id',
          goods.map((value, index) => task(`t${index}`, { goods: value })),
        );
      }),
      { numRuns: 40 },
    );
  });
});
