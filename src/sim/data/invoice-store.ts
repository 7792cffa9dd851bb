import { childListingSource, type ListingSource, tableListingSource } from '../listing/listing-source.js';
import { type InvoicePatch, type NewPayment, preliminaryOnlyInvoiceFields } from '../records/index.js';
import type { RecordShapes } from '../records/record-shapes.js';
import { SimHttpError } from '../sim-http-error.js';
import { createRecordTable, type RecordTable, recordFlags } from '../tables/record-table.js';
import type { SequenceCounter } from '../tables/sequence-counter.js';
import { childId, type IdFormat } from './id-format.js';
import {
  baseInvoiceStatus,
  generateInvoice,
  type InvoiceGeneratorOptions,
  type InvoiceRecord,
  type InvoiceState,
  invoiceLine,
  invoiceStatusCodes,
  type PaymentState,
  paidAmountOf,
  totalsOf,
} from './invoice-generator.js';
import { addDays, withSequence } from './record-time.js';

export interface InvoiceStoreOptions extends InvoiceGeneratorOptions {
  count: number;
  counter: SequenceCounter;
  sequenceField: string;
  jsonCacheSize: number;
  now(): number;
  /** The wire form of a record (variant.recordShapes). */
  shapes: RecordShapes;
}

/** The invoices and what hangs under them (lines, payments), with the operations of docs/api.md, Operations. */
export interface InvoiceStore {
  readonly table: RecordTable<InvoiceState>;
  readonly ids: IdFormat;
  listing(): ListingSource;
  /** Index of the invoice with this id (soft-deleted ones included); 404 when there is none. */
  find(id: string): number;
  listJson(index: number): string;
  detailJson(index: number): string;
  /** Each line of the invoice as its detail serves it. */
  linesJson(index: number): string[];
  paymentJson(payment: PaymentState): string;
  payments(index: number): ListingSource;
  patch(index: number, patch: InvoicePatch): void;
  finalize(index: number): void;
  cancel(index: number): void;
  softDelete(index: number): void;
  hardDelete(index: number): void;
  /** A change of nothing but the sequence and modifiedAt (the served JSON changed around the state). */
  touch(index: number): number;
  create(): number;
  addPayment(index: number, payment: NewPayment): PaymentState;
  removePayment(index: number, paymentId: string): void;
  /** The simulator clock's calendar date, `YYYY-MM-DD` (the date of a payment made now). */
  today(): string;
}

const conflict = (code: string, message: string, details?: unknown) =>
  new SimHttpError(409, code, message, details);

export function createInvoiceStore(options: InvoiceStoreOptions): InvoiceStore {
  const { counter, sequenceField, shapes } = options;
  const wire = (stream: string, record: object) =>
    JSON.stringify(shapes(stream, record as Record<string, unknown>));
  const table = createRecordTable<InvoiceState>({
    baseCount: options.count,
    generate: (index) => generateInvoice(options, index),
    baseSequences: options.baseSequences,
    baseFlags: (index) => flagsOf(baseInvoiceStatus(options.seed, index)),
    counter,
    jsonCacheSize: options.jsonCacheSize,
  });
  const nowIso = () => new Date(options.now()).toISOString();
  const state = (index: number) => table.get(index)!;
  const listJson = (index: number) =>
    table.json(index, (current, sequence) =>
      withSequence(wire('invoices', current.invoice), sequenceField, sequence),
    );
  const change = (index: number, mutate: (invoice: InvoiceState) => void) =>
    table.change(index, (current) => {
      mutate(current);
      current.invoice.modifiedAt = nowIso();
    });
  const transition = (index: number, from: InvoiceRecord['status'], to: InvoiceRecord['status']) => {
    const current = state(index).invoice.status;
    if (current !== from)
      throw conflict('invalid_state', `invoice is ${current}; only a ${from} invoice can become ${to}`);
    table.change(
      index,
      (invoice) => {
        invoice.invoice.status = to;
        invoice.invoice.modifiedAt = nowIso();
        if (to === 'finalized') issue(invoice.invoice, options.now());
      },
      flagsOf(to),
    );
  };
  const store: InvoiceStore = {
    table,
    ids: options.ids,
    listing: () =>
      tableListingSource({ key: 'invoices', table, statusCodes: invoiceStatusCodes, json: listJson }),
    find(id) {
      const index = options.ids.parse(id);
      if (index === undefined || table.isGone(index))
        throw new SimHttpError(404, 'not_found', 'no such invoice');
      return index;
    },
    listJson,
    detailJson: (index) => `${listJson(index).slice(0, -1)},"lines":[${store.linesJson(index).join(',')}]}`,
    linesJson: (index) => state(index).lines.map((line) => wire('invoice_lines', line)),
    paymentJson: (payment) =>
      withSequence(wire('invoice_payments', payment.record), sequenceField, payment.sequence),
    payments: (index) =>
      childListingSource({
        version: table.version,
        key: `invoice_payments:${index}`,
        children: state(index).payments,
        json: store.paymentJson,
        limits: { default: 10, max: 100 },
      }),
    patch(index, patch) {
      const current = state(index);
      if (current.invoice.status === 'deleted') throw conflict('invalid_state', 'invoice is deleted');
      const locked = preliminaryOnlyInvoiceFields.filter((field) => field in patch);
      if (current.invoice.status !== 'preliminary' && locked.length > 0) {
        throw conflict(
          'not_preliminary',
          `invoice is ${current.invoice.status}; ${locked.join(', ')} change only while preliminary`,
          { fields: locked },
        );
      }
      const patched = applyInvoicePatch(structuredClone(current), patch);
      if (
        JSON.stringify([patched.invoice, patched.lines]) === JSON.stringify([current.invoice, current.lines])
      )
        return;
      change(index, (invoice) => Object.assign(invoice, patched));
    },
    finalize: (index) => transition(index, 'preliminary', 'finalized'),
    cancel: (index) => transition(index, 'finalized', 'cancelled'),
    softDelete: (index) => transition(index, 'preliminary', 'deleted'),
    hardDelete: (index) => table.remove(index),
    touch: (index) => change(index, () => {}),
    create() {
      const index = table.size();
      const created = generateInvoice(options, index, { modifiedAt: nowIso() });
      return table.add(created, flagsOf('preliminary'));
    },
    addPayment(index, payment) {
      requireFinalized(state(index).invoice);
      let added: PaymentState | undefined;
      change(index, (invoice) => {
        const number = invoice.nextPaymentNumber++;
        const record = {
          id: childId(invoice.invoice.id, 'P', number),
          invoiceId: invoice.invoice.id,
          ...pickPayment(payment),
          createdAt: nowIso(),
        };
        added = { number, sequence: counter.next(), record };
        invoice.payments.push(added);
        invoice.invoice.paidAmount = paidAmountOf(invoice.payments);
      });
      return added!;
    },
    today: () => nowIso().slice(0, 10),
    removePayment(index, paymentId) {
      const { payments, invoice } = state(index);
      if (!payments.some((payment) => payment.record.id === paymentId))
        throw new SimHttpError(404, 'not_found', 'no such payment');
      requireFinalized(invoice);
      change(index, (current) => {
        current.payments = current.payments.filter((payment) => payment.record.id !== paymentId);
        current.invoice.paidAmount = paidAmountOf(current.payments);
      });
    },
  };
  return store;
}

function flagsOf(status: InvoiceRecord['status']): number {
  if (status === 'deleted') return recordFlags.softDeleted;
  return invoiceStatusCodes[status] << recordFlags.statusShift;
}

function requireFinalized(invoice: InvoiceRecord): void {
  if (invoice.status !== 'finalized') {
    throw conflict(
      'invalid_state',
      `invoice is ${invoice.status}; payments are recorded and removed on finalized invoices only`,
    );
  }
}

function issue(invoice: InvoiceRecord, now: number): void {
  invoice.issueDate ??= new Date(now).toISOString().slice(0, 10);
  invoice.dueDate ??= addDays(invoice.issueDate, 30);
}

function pickPayment(payment: NewPayment): NewPayment {
  return { amount: payment.amount, date: payment.date, reference: payment.reference };
}

/** RFC 7396 on the invoice's flat fields; `lines` replaces the lines as a whole. */
function applyInvoicePatch(state: InvoiceState, patch: InvoicePatch): InvoiceState {
  const { lines, ...fields } = patch;
  Object.assign(state.invoice, fields);
  if (lines) {
    state.lines = lines.map((line, offset) => invoiceLine(state.invoice.id, offset + 1, line));
    state.invoice.totals = totalsOf(state.lines);
  }
  return state;
}
