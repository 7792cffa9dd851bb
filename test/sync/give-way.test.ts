import { describe, expect, it } from 'vitest';
import type { StopSignal } from '../../src/linked-signals.js';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

// Issue #35: a backfill gives way to cycles that start late. The engine's side: a run asks before
// each further page of a listing and before each parent whose children it fetches, with its signal.

// tms-sim's default, and another TMS's ways: other record shapes, ids to encode, another sequence
// field, a cursor on the last page, single records in `items`, opaque tokens.
const otherTms = {
  recordShapes: 'alt',
  idStyle: 'unsafe',
  sequenceField: 'seqNo',
  cursorOnLastPage: true,
  singleEnvelope: 'items',
  tokenFormat: 'opaque',
} as const;

describeOnEachDialect('a run that gives way', (fixture) => {
  for (const [name, variant] of [['tms-sim', {}] as const, ['another TMS', otherTms] as const])
    describe(`against ${name}`, () => giveWayCases(fixture, variant));
});

function giveWayCases(fixture: Parameters<typeof useSyncSetup>[0], variant: object) {
  const { store, setup } = useSyncSetup(fixture, { invoices: 350, clients: 20, operators: 1, variant });

  it('asks before each further listing page and before each parent, with its own signal', async () => {
    const asked: StopSignal[] = [];
    const giveWay = async (signal: StopSignal) => {
      asked.push(signal);
    };
    const invoices = await setup().engine.runPartition('invoices', '', { giveWay });
    expect(invoices.result).toBe('succeeded');
    expect(invoices.pages).toBeGreaterThan(2);
    expect(asked).toHaveLength(invoices.pages - 1);
    expect(asked.every((signal) => typeof signal.throwIfAborted === 'function' && !signal.aborted)).toBe(
      true,
    );

    const lines = await setup().engine.runPartition('invoice_lines', '', { giveWay });
    expect(lines.result).toBe('succeeded');
    const live = await store().countRows('invoices', { live: true });
    expect(asked).toHaveLength(invoices.pages - 1 + live);
  });

  it('stops where it gives way when its signal aborts, keeping what it committed', async () => {
    const stop = new AbortController();
    const giveWay = async (signal: StopSignal) => {
      stop.abort(new Error('worker stopping'));
      signal.throwIfAborted();
    };
    const run = await setup().engine.runPartition('invoices', '', { giveWay, signal: stop.signal });
    expect(run.result).toBe('interrupted');
    expect(run.pages).toBe(1);
    expect(await store().countRows('invoices')).toBe(100);
  });
}
