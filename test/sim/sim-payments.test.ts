import { expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { startSim } from '../../src/sim/start-sim.js';

// The demo's questions ("what is open", "payments last month") need payments that add up and
// lie where the simulator's clock is, like the tasks do.

interface Payment {
  amount: number;
  date: string;
}

async function invoicesWithPayments(now: number) {
  const sim = await startSim({ invoices: 600, clients: 40, seed: 7, now: () => now });
  try {
    const admin = createSimAdminClient({ url: sim.url });
    const invoices = (await admin.truth('invoices')).invoices!['']!.records as Array<{
      id: string;
      status: string;
      totals: { gross: number };
      paidAmount: number;
      issueDate: string | null;
    }>;
    const payments = (await admin.truth('invoice_payments')).invoice_payments ?? {};
    return invoices.map((invoice) => ({
      invoice,
      payments: (payments[invoice.id]?.records ?? []) as Payment[],
    }));
  } finally {
    await sim.close();
  }
}

it('pays an invoice never more than its gross amount, and a paid invoice exactly', async () => {
  const all = await invoicesWithPayments(Date.UTC(2026, 10, 20, 9));
  for (const { invoice, payments } of all) {
    const cents = payments.reduce((sum, payment) => sum + Math.round(payment.amount * 100), 0);
    expect(cents).toBe(Math.round(invoice.paidAmount * 100));
    expect(cents).toBeLessThanOrEqual(Math.round(invoice.totals.gross * 100));
  }
  const paid = all.filter(({ invoice }) => invoice.paidAmount === invoice.totals.gross);
  expect(paid.length).toBeGreaterThan(50);
});

it("dates issues and payments in the two years up to the simulator's day, the same for the same seed and day", async () => {
  const now = Date.UTC(2026, 10, 20, 9);
  const all = await invoicesWithPayments(now);
  const today = '2026-11-20';
  const monthAgo = '2026-10-20';
  const dates = all.flatMap(({ payments }) => payments.map((payment) => payment.date));
  expect(dates.every((date) => date <= today)).toBe(true);
  expect(dates.filter((date) => date > monthAgo).length).toBeGreaterThan(5);
  const issued = all.flatMap(({ invoice }) => (invoice.issueDate ? [invoice.issueDate] : []));
  expect(issued.every((date) => date >= '2024-11-20' && date < today)).toBe(true);
  expect(await invoicesWithPayments(now + 3600_000)).toEqual(all);
});
