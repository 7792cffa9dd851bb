import fc from 'fast-check';
import type { FaultRates } from '../../../src/sim/sim-options.js';
import type { CommandInput } from '../../../src/store/outbox/command.js';

/** A command in the abstract: indexes into the simulator's records, resolved once it runs (resolve.ts). */
export type CommandSpec =
  | {
      readonly kind: 'payment';
      readonly invoice: number;
      readonly refused: boolean;
      readonly twin: boolean;
      readonly sql: boolean;
    }
  | { readonly kind: 'remove_payment'; readonly invoice: number; readonly payment: number }
  | { readonly kind: 'patch_invoice'; readonly invoice: number; readonly field: 'reference' | 'currency' }
  | { readonly kind: 'finalize_invoice' | 'cancel_invoice' | 'delete_invoice'; readonly invoice: number }
  | { readonly kind: 'create_client'; readonly keyed: boolean }
  | { readonly kind: 'patch_client'; readonly client: number }
  | { readonly kind: 'add_client_contact'; readonly client: number; readonly keyed: boolean }
  | { readonly kind: 'unknown_kind' };

/** The invoices and clients the commands act on: few, so commands meet on the same target. */
const invoice = fc.nat({ max: 9 });
const client = fc.nat({ max: 4 });

const spec: fc.Arbitrary<CommandSpec> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('payment' as const),
      invoice,
      refused: fc.constantFrom(false, false, false, true),
      twin: fc.constantFrom(false, false, false, true),
      sql: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('remove_payment' as const),
      invoice,
      payment: fc.integer({ min: -1, max: 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('patch_invoice' as const),
      invoice,
      field: fc.constantFrom('reference' as const, 'currency' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'finalize_invoice' as const,
        'cancel_invoice' as const,
        'delete_invoice' as const,
      ),
      invoice,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('create_client' as const),
      keyed: fc.constantFrom(true, true, true, false),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('patch_client' as const), client }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('add_client_contact' as const),
      client,
      keyed: fc.constantFrom(true, true, true, false),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown_kind' as const }) },
);

/** Faults of a case: lost answers, resets, 5xx and 429 (no waits: Retry-After 0). */
const faults: fc.Arbitrary<Partial<FaultRates>> = fc.record({
  lostResponse: fc.constantFrom(0.1, 0.25, 0.4),
  serverError: fc.constantFrom(0, 0.05),
  reset: fc.constantFrom(0, 0.03),
  rateLimited: fc.constantFrom(0, 0.05),
  retryAfterSeconds: fc.constant(0),
});

export interface WriteBackCase {
  readonly seed: number;
  readonly commands: readonly CommandSpec[];
  readonly faults: Partial<FaultRates>;
}

export const writeBackCases: fc.Arbitrary<WriteBackCase> = fc.record({
  seed: fc.integer({ min: 1, max: 1000 }),
  commands: fc.array(spec, { minLength: 3, maxLength: 20 }),
  faults,
});

/** The simulator's records the specs point into. */
export interface SimRecords {
  readonly invoices: readonly string[];
  readonly clients: readonly string[];
  /** Payments the simulator generated, per invoice id. */
  readonly payments: ReadonlyMap<string, readonly string[]>;
}

/** A resolved command and how it was inserted. */
export interface PlannedCommand {
  readonly input: CommandInput;
  /** Inserted with plain SQL (the transactional outbox), not through `command add`. */
  readonly sql: boolean;
}

/** Turns specs into commands on the simulator's records; every create gets its own key (`WB-<n>`). */
export function planCommands(specs: readonly CommandSpec[], records: SimRecords): PlannedCommand[] {
  const planned: PlannedCommand[] = [];
  let lastPayment: CommandInput | undefined;
  const invoiceOf = (index: number) => records.invoices[index % records.invoices.length]!;
  const clientOf = (index: number) => records.clients[index % records.clients.length]!;
  const add = (input: CommandInput, sql = false): PlannedCommand => ({ input, sql });
  const plan = (spec: CommandSpec, n: number): PlannedCommand => {
    switch (spec.kind) {
      case 'payment': {
        const input =
          spec.twin && lastPayment
            ? lastPayment
            : {
                kind: 'record_payment',
                target: invoiceOf(spec.invoice),
                body: { amount: spec.refused ? -1 : 10 + n / 4, date: '2026-11-20', reference: `WB-${n}` },
              };
        if (!spec.refused) lastPayment = input;
        return add(input, spec.sql);
      }
      case 'remove_payment': {
        const target = invoiceOf(spec.invoice);
        const paymentId = records.payments.get(target)?.[spec.payment] ?? `${target}-P9999`;
        return add({ kind: 'remove_payment', target, body: { paymentId } });
      }
      case 'patch_invoice':
        return add({
          kind: 'patch_invoice',
          target: invoiceOf(spec.invoice),
          body: spec.field === 'reference' ? { reference: `WB-${n}` } : { currency: n % 2 ? 'USD' : 'GBP' },
        });
      case 'create_client':
        return add({
          kind: 'create_client',
          body: { name: `WB Client ${n}`, vatNumber: `WB-${n}` },
          match: spec.keyed ? ['vatNumber'] : null,
        });
      case 'patch_client':
        return add({ kind: 'patch_client', target: clientOf(spec.client), body: { phone: `+31 20 ${n}` } });
      case 'add_client_contact':
        return add({
          kind: 'add_client_contact',
          target: clientOf(spec.client),
          body: { name: `WB Contact ${n}` },
          match: spec.keyed ? ['name'] : null,
        });
      case 'unknown_kind':
        return add({ kind: 'pay_twice', target: invoiceOf(0), body: {} }, true);
      default:
        return add({ kind: spec.kind, target: invoiceOf(spec.invoice) });
    }
  };
  specs.forEach((spec, n) => {
    planned.push(plan(spec, n));
  });
  return planned;
}
