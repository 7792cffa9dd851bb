import type { Invoice, InvoiceLine, Payment } from '../records/index.js';
import { createPicker, hash32, type Picker, randomTags } from '../seeded-random.js';
import { childId, type IdFormat } from './id-format.js';
import { baseModifiedAt, calendarDate, cents } from './record-time.js';
import { currencies, notes, products, vatRates } from './word-lists.js';

export type InvoiceRecord = Omit<Invoice, 'sequence'>;
export type PaymentRecord = Omit<Payment, 'sequence'>;

/** A payment with its sequence and its number under the invoice (the id order). */
export interface PaymentState {
  readonly number: number;
  readonly sequence: number;
  readonly record: PaymentRecord;
}

/** An invoice with everything under it. */
export interface InvoiceState {
  invoice: InvoiceRecord;
  lines: InvoiceLine[];
  payments: PaymentState[];
  nextPaymentNumber: number;
}

/** Invoice status codes in the record flags. */
export const invoiceStatusCodes = { preliminary: 0, finalized: 1, cancelled: 2 } as const;

export interface InvoiceGeneratorOptions {
  seed: number;
  ids: IdFormat;
  clientIds: IdFormat;
  clientCount: number;
  baseSequences: Float64Array;
  firstSequence: number;
  /**
   * The simulator's day when it started (record-time.ts `dayOf` of its clock): issue and payment
   * dates lie in the two years before it, so "payments last month" finds some, as on a real TMS.
   */
  today: number;
}

// Generation is synchronous, so one picker reseeded per record serves every call.
const picker = createPicker();

/** Base status of invoice `index`: 5% soft-deleted (were preliminary), 25% preliminary, 58% finalized, 12% cancelled. */
export function baseInvoiceStatus(seed: number, index: number): Invoice['status'] {
  const roll = hash32(seed, randomTags.invoice + 100, index) % 100;
  if (roll < 5) return 'deleted';
  if (roll < 30) return 'preliminary';
  return roll < 88 ? 'finalized' : 'cancelled';
}

/**
 * Rebuilds invoice `index` of the initial data set, the same for the same seed. `created` builds a
 * new preliminary invoice instead (random changes), modified at that time.
 */
export function generateInvoice(
  options: InvoiceGeneratorOptions,
  index: number,
  created?: { modifiedAt: string },
): InvoiceState {
  const pick = picker.reseed(hash32(options.seed, randomTags.invoice, index));
  const id = options.ids.format(index);
  const status = created ? 'preliminary' : baseInvoiceStatus(options.seed, index);
  const sequence = created ? 0 : options.baseSequences[index]!;
  const modifiedAt = created?.modifiedAt ?? baseModifiedAt(sequence, options.firstSequence);
  const issued = status === 'finalized' || status === 'cancelled' || pick.chance(0.5);
  const issueDay = issued ? options.today - pick.int(1, 700) : -1;
  const issueDate = issued ? calendarDate(issueDay) : null;
  const lines = generateLines(pick, id);
  const totals = totalsOf(lines);
  const payments =
    status === 'finalized'
      ? generatePayments(pick, { id, sequence, modifiedAt, issueDay, totals }, options.today)
      : [];
  const invoice: InvoiceRecord = {
    id,
    number: `INV-${String(index + 1).padStart(8, '0')}`,
    status,
    clientId: options.clientIds.format(pick.int(0, Math.max(options.clientCount - 1, 0))),
    currency: pick.pick(currencies),
    issueDate,
    dueDate: issued ? calendarDate(issueDay + pick.pick([14, 30, 30, 60])) : null,
    reference: `PO-${pick.int(100000, 999999)}`,
    notes: pick.pick(notes),
    totals,
    paidAmount: paidAmountOf(payments),
    modifiedAt,
  };
  return { invoice, lines, payments, nextPaymentNumber: payments.length + 1 };
}

function generateLines(pick: Picker, invoiceId: string): InvoiceLine[] {
  const count = pick.int(1, 5);
  const lines: InvoiceLine[] = [];
  for (let number = 1; number <= count; number++) {
    const product = pick.pick(products);
    lines.push(
      invoiceLine(invoiceId, number, {
        description: product.description,
        productCode: product.code,
        quantity: pick.int(1, 20),
        unitPrice: cents(pick.int(500, 250000) / 100),
        vatRate: pick.pick(vatRates),
      }),
    );
  }
  return lines;
}

/** A line with its positional id and computed amount (so the same lines patch gives the same lines). */
export function invoiceLine(
  invoiceId: string,
  number: number,
  line: Omit<InvoiceLine, 'id' | 'amount'>,
): InvoiceLine {
  return {
    id: childId(invoiceId, 'L', number),
    description: line.description,
    productCode: line.productCode,
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    vatRate: line.vatRate,
    amount: cents(line.quantity * line.unitPrice),
  };
}

export function totalsOf(lines: readonly InvoiceLine[]): InvoiceRecord['totals'] {
  const net = cents(lines.reduce((sum, line) => sum + line.amount, 0));
  const vat = cents(lines.reduce((sum, line) => sum + (line.amount * line.vatRate) / 100, 0));
  return { net, vat, gross: cents(net + vat) };
}

export function paidAmountOf(payments: readonly PaymentState[]): number {
  return cents(payments.reduce((sum, payment) => sum + payment.record.amount, 0));
}

/**
 * Zero to two payments of an invoice, together exactly its gross amount (the last takes what the
 * rounded shares leave), each 1 to 45 days after the issue date; those that would fall after
 * `today` have not happened yet, so a recent invoice may be open or partly paid.
 */
function generatePayments(
  pick: Picker,
  invoice: {
    id: string;
    sequence: number;
    modifiedAt: string;
    issueDay: number;
    totals: InvoiceRecord['totals'];
  },
  today: number,
): PaymentState[] {
  const count = pick.pick([0, 0, 1, 1, 1, 2]);
  const share = cents(invoice.totals.gross / Math.max(count, 1));
  const days = Array.from({ length: count }, () => invoice.issueDay + pick.int(1, 45)).sort((a, b) => a - b);
  return days
    .map((day, offset) => ({
      day,
      amount: offset < count - 1 ? share : cents(invoice.totals.gross - share * (count - 1)),
      reference: `BANK-${pick.int(1000000, 9999999)}`,
    }))
    .filter((payment) => payment.day <= today)
    .map((payment, offset) => ({
      number: offset + 1,
      sequence: invoice.sequence,
      record: {
        id: childId(invoice.id, 'P', offset + 1),
        invoiceId: invoice.id,
        amount: payment.amount,
        date: calendarDate(payment.day),
        reference: payment.reference,
        createdAt: invoice.modifiedAt,
      },
    }));
}
