import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { streams } from '../../config/streams.js';
import { childStreamsOf, dependenciesOf, inRunOrder } from '../../src/sync/stream-order.js';
import { resolveStreams } from '../../src/sync/sync-engine.js';

const names = Object.keys(streams);

describe('the stream catalogue', () => {
  it('gives every stream a key, and typed columns only for fields the spec shows', () => {
    for (const definition of Object.values(streams)) expect(definition.key).toBeDefined();
    const withColumns = names.filter(
      (name) => Object.keys(streams[name as keyof typeof streams].columns).length > 0,
    );
    expect(withColumns.sort()).toEqual(
      [
        'clients',
        'client_contacts',
        'color_profiles',
        'invoice_payments',
        'invoices',
        'tasks',
        'trace_types',
        'trailers',
      ].sort(),
    );
  });

  it('gives every definition the same fields in the same order (one hidden class for the engine)', () => {
    const shapes = new Set(Object.values(streams).map((definition) => Object.keys(definition).join(',')));
    expect(shapes.size).toBe(1);
    expect(streams.tasks).toMatchObject({ strategy: 'snapshot', scope: 'operator', parent: undefined });
  });

  it('runs every stream after the streams it reads from', () => {
    const order: string[] = inRunOrder(names);
    for (const name of names) {
      for (const dependency of dependenciesOf(name))
        expect(order.indexOf(dependency)).toBeLessThan(order.indexOf(name));
    }
  });

  it('answers the dependencies of each stream with one list kept frozen, empty or not', () => {
    // Frozen lists share one hidden class, so the loops over them in every partition's run stay optimized.
    for (const name of names) {
      expect(Object.isFrozen(dependenciesOf(name))).toBe(true);
      expect(dependenciesOf(name)).toBe(dependenciesOf(name));
    }
    expect(dependenciesOf('goods')).toEqual(['tasks']);
    expect(dependenciesOf('tasks')).toEqual([]);
  });

  it('runs a dependency first even when only the dependent is named after it', () => {
    expect(inRunOrder(['goods', 'tasks'])).toEqual(['tasks', 'goods']);
    expect(childStreamsOf('invoices')).toEqual(['invoice_lines', 'invoice_payments']);
  });

  it('refuses an unknown stream name, listing the known ones', () => {
    expect(() => resolveStreams(['invoices', 'nope'])).toThrow(
      /unknown stream nope; known: invoices, invoice_lines/,
    );
  });

  it('is documented stream by stream in docs/streams.md', () => {
    const doc = readFileSync(new URL('../../docs/streams.md', import.meta.url), 'utf8');
    for (const name of names) expect(doc).toMatch(new RegExp(`\\| \`${name}\` +\\|`));
  });
});
