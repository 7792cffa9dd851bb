import type { JsonObject } from '../../schemas/json-object.js';
import type { StoreRecord } from '../../src/store/store.js';

/** Small records shaped like the catalogue's, for store tests. */
export interface TestInvoice {
  id: string;
  number: string;
  status: string;
  totals: { net: number; vat: number; gross: number };
  modifiedAt: string;
  issueDate: string | null;
  sequence: number;
}

export function invoice(id: string, sequence: number, overrides: Partial<TestInvoice> = {}): TestInvoice {
  return {
    id,
    number: `INV-${id}`,
    status: 'finalized',
    totals: { net: 100, vat: 21, gross: 121 },
    modifiedAt: '2024-05-01T10:00:00Z',
    issueDate: '2024-05-01',
    sequence,
    ...overrides,
  };
}

export function task(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, index: 1, status: 'notStarted', client: { id: 'c1', name: 'Client' }, ...overrides };
}

export const now = new Date('2024-06-01T12:00:00.000Z');
export const later = new Date('2024-06-02T12:00:00.000Z');

/** Records as the engine hands them to the store: keyed by `id`, with their `sequence`. */
export function keyed(records: readonly object[]): StoreRecord[] {
  return records.map((data) => {
    const { id, sequence } = data as { id: string | number; sequence?: number };
    return { key: String(id), sequence: sequence ?? null, data: data as JsonObject };
  });
}
