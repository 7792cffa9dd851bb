import fc from 'fast-check';
import { expect, it } from 'vitest';
import { valuesAtPath } from '../../src/store/values-at-path.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { keyed, now, task } from './records.js';

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

  it('are the distinct values at the path of the live rows of the scope, sorted', async () => {
    await store().writePage({
      stream: 'tasks',
      scope: 'op1',
      records: keyed([
        task('t1', { goods: [{ id: 'g2' }, { id: 7 }, { id: '' }, { id: 1.5 }], order: { id: 'o1' } }),
        task('t2', { goods: [[{ id: 'g1' }], { id: 'g2' }], order: 'not an object' }),
        task('t3', { goods: { id: 'g9' } }),
        task('t4', { goods: [{ id: 'gone' }] }),
      ]),
      now,
      runId: null,
    });
    await store().writePage({
      stream: 'tasks',
      scope: 'op2',
      records: keyed([task('t5', { goods: [{ id: 'other' }] })]),
      now,
      runId: null,
    });
    await store().markDeleted({ stream: 'tasks', scope: 'op1', ids: ['t4'], reason: 'upstream', now });
    expect(await store().referencedIds('tasks', { path: 'goods.id', scope: 'op1' })).toEqual([
      '7',
      'g1',
      'g2',
      'g9',
    ]);
    expect(await store().referencedIds('tasks', { path: 'order.id', scope: 'op1' })).toEqual(['o1']);
    expect(await store().referencedIds('tasks', { path: 'id', scope: 'op2' })).toEqual(['t5']);
  });

  it('are what valuesAtPath finds in the records, whatever their shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(reference, { minLength: 1, maxLength: 6 }), async (goods) => {
        const records = goods.map((value, index) => task(`t${index}`, { goods: value }));
        const scope = `s${Math.random().toString(36).slice(2)}`;
        await store().writePage({ stream: 'tasks', scope, records: keyed(records), now, runId: null });
        const read = valuesAtPath('goods.id');
        const expected = [...new Set(records.flatMap((record) => read(record)))].sort();
        expect(await store().referencedIds('tasks', { path: 'goods.id', scope })).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });
});
