import { expect, it } from 'vitest';
import { createTmsClient } from '../../src/client/index.js';
import { createLogger } from '../../src/logger.js';
import { drainOutbox } from '../../src/write-back/drain-outbox.js';
import { describeOnEachDialect } from '../support/on-each-dialect.js';
import { quickClient, quickCommands, useDeliverySetup } from './support/delivery-setup.js';

const payment = (reference: string, amount = 12.5) => ({ amount, date: '2026-11-20', reference });
const withReference = (reference: string) => (record: Record<string, unknown>) =>
  record.reference === reference;

describeOnEachDialect('command delivery', (fixture) => {
  const setup = useDeliverySetup(fixture);

  it('records a payment once, keeps the id the TMS answered, and queues the invoice for its payments refresh', async () => {
    const { add, drain, command, invoicesIn, truthOf } = setup();
    const [invoice] = await invoicesIn('finalized');
    const [id] = await add({ kind: 'record_payment', target: invoice!, body: payment('BANK-1') });
    const report = await drain();
    expect(report.deliveries.map((delivery) => delivery.status)).toEqual(['done']);
    const payments = (await truthOf('invoice_payments', invoice!)).filter(withReference('BANK-1'));
    expect(payments).toHaveLength(1);
    expect(await command(id!)).toMatchObject({
      status: 'done',
      attempts: 1,
      createdId: payments[0]!.id,
      inDoubt: false,
    });
    const url = await fixture.url();
    const queued = await fixture.query(
      url,
      "select parent_id from child_queue where stream = 'invoice_payments'",
    );
    expect(queued).toEqual([{ parent_id: invoice }]);
  });

  it('reads a payment back after its answer was lost, and never sends it twice', async () => {
    const { add, drain, command, invoicesIn, truthOf, loseAnswers } = setup();
    const [invoice] = await invoicesIn('finalized');
    const [id] = await add({ kind: 'record_payment', target: invoice!, body: payment('LOST-1') });
    await loseAnswers();
    expect(await command(id!)).toMatchObject({ status: 'pending', inDoubt: true, attempts: 1 });
    await drain();
    const payments = (await truthOf('invoice_payments', invoice!)).filter(withReference('LOST-1'));
    expect(payments).toHaveLength(1);
    expect(await command(id!)).toMatchObject({
      status: 'done',
      attempts: 2,
      createdId: payments[0]!.id,
      lastError: expect.stringContaining('found by reading back'),
    });
  });

  it('reads every page of the payments back, not just the first', async () => {
    const { add, drainAll, command, client, invoicesIn, truthOf, loseAnswers } = setup();
    const [invoice] = await invoicesIn('finalized');
    // More payments than one page holds (the listing caps pages at 100): the command's own comes last.
    for (let batch = 0; batch < 6; batch++)
      await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          client.recordPayment(invoice!, payment(`EARLIER-${batch}-${n}`, 1)),
        ),
      );
    const [id] = await add({ kind: 'record_payment', target: invoice!, body: payment('LAST') });
    await loseAnswers();
    await drainAll();
    const payments = await truthOf('invoice_payments', invoice!);
    expect(payments.length).toBeGreaterThan(120);
    expect(payments.filter(withReference('LAST'))).toHaveLength(1);
    expect(await command(id!)).toMatchObject({
      status: 'done',
      lastError: expect.stringContaining('found by reading back'),
    });
  });

  it('tells its own payment from an identical one recorded before it was first sent', async () => {
    const { add, drain, drainAll, command, invoicesIn, truthOf, loseAnswers } = setup();
    const [invoice] = await invoicesIn('finalized');
    await add({ kind: 'record_payment', target: invoice!, body: payment('TWIN') });
    await drain();
    const [second] = await add({ kind: 'record_payment', target: invoice!, body: payment('TWIN') });
    await loseAnswers();
    await drainAll();
    const twins = (await truthOf('invoice_payments', invoice!)).filter(withReference('TWIN'));
    expect(twins).toHaveLength(2);
    const done = await command(second!);
    expect(done).toMatchObject({ status: 'done', createdId: twins[1]!.id, seenBefore: [twins[0]!.id] });
  });

  it('fails a command the TMS refuses (409, 422, 404) with the TMS answer, and goes on with the rest', async () => {
    const { add, drainAll, command, invoicesIn } = setup();
    const [preliminary] = await invoicesIn('preliminary');
    const [finalized] = await invoicesIn('finalized');
    const ids = await add(
      { kind: 'record_payment', target: preliminary!, body: payment('TOO-EARLY') },
      { kind: 'record_payment', target: finalized!, body: { ...payment('NEGATIVE'), amount: -5 } },
      { kind: 'finalize_invoice', target: '9999999999' },
      { kind: 'finalize_invoice', target: preliminary! },
    );
    await drainAll();
    const [conflict, invalid, missing, finalize] = await Promise.all(ids.map((id) => command(id)));
    expect(conflict).toMatchObject({
      status: 'failed',
      lastError: expect.stringMatching(/409.*payments are recorded .* on finalized invoices only/),
    });
    expect(invalid).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/422.*amount/) });
    expect(missing).toMatchObject({
      status: 'failed',
      lastError: expect.stringMatching(/404.*no such invoice/),
    });
    expect(finalize).toMatchObject({ status: 'done' });
  });

  it('retries a finalize whose answer was lost, and takes the 409 that follows as done once the invoice reads finalized', async () => {
    const { add, drain, command, invoicesIn, loseAnswers } = setup();
    const [invoice] = await invoicesIn('preliminary');
    const [id] = await add({ kind: 'finalize_invoice', target: invoice! });
    await loseAnswers();
    expect(await command(id!)).toMatchObject({ status: 'pending', inDoubt: true });
    await drain();
    expect(await command(id!)).toMatchObject({
      status: 'done',
      lastError: expect.stringContaining(
        'answered 409 after an attempt in doubt; the invoice reads finalized',
      ),
    });
    expect(await invoicesIn('finalized')).toContain(invoice);
  });

  it('leaves a create whose answer was lost and that names no match key for review, never sending it again', async () => {
    const { add, drainAll, command, clients, loseAnswers } = setup();
    const [id] = await add({ kind: 'create_client', body: { name: 'Nameless Ltd' } });
    await loseAnswers();
    await drainAll();
    expect(await command(id!)).toMatchObject({
      status: 'needs_review',
      inDoubt: true,
      lastError: expect.stringContaining('no match key'),
    });
    expect((await clients()).filter((client) => client.name === 'Nameless Ltd')).toHaveLength(1);
  });

  it('finds a client and a contact by the match key they name after their answers were lost', async () => {
    const { add, drainAll, command, clients, truthOf, loseAnswers } = setup();
    const [clientId] = await add({
      kind: 'create_client',
      body: { name: 'Acme BV', vatNumber: 'NL-ACME-01' },
      match: ['vatNumber'],
    });
    await loseAnswers();
    await drainAll();
    const created = (await clients()).filter((client) => client.vatNumber === 'NL-ACME-01');
    expect(created).toHaveLength(1);
    expect(await command(clientId!)).toMatchObject({ status: 'done', createdId: created[0]!.id });
    const target = String(created[0]!.id);
    const [contactId] = await add({
      kind: 'add_client_contact',
      target,
      body: { name: 'Ann', email: 'ann@acme.test' },
      match: ['email'],
    });
    await loseAnswers();
    await drainAll();
    const contacts = (await truthOf('client_contacts', target)).filter(
      (contact) => contact.email === 'ann@acme.test',
    );
    expect(contacts).toHaveLength(1);
    expect(await command(contactId!)).toMatchObject({ status: 'done', createdId: contacts[0]!.id });
  });

  it('leaves a create for review when the TMS lists a record without the match fields, never sending it again', async () => {
    const { add, drainAll, command, clients, admin, loseAnswers } = setup();
    const [id] = await add({
      kind: 'create_client',
      body: { name: 'Shapeless BV', vatNumber: 'NL-SHAPE-1' },
      match: ['vatNumber'],
    });
    await loseAnswers();
    // This TMS lists the new client with its VAT number in another form.
    const created = (await clients()).find((client) => client.name === 'Shapeless BV')!;
    await admin.setOverride('clients', String(created.id), { vatNumber: { value: 'NL-SHAPE-1' } });
    await drainAll();
    expect(await command(id!)).toMatchObject({
      status: 'needs_review',
      lastError: expect.stringContaining(`without comparable vatNumber (${created.id})`),
    });
    expect((await clients()).filter((client) => client.name === 'Shapeless BV')).toHaveLength(1);
  });

  it('takes over the command of a deliverer that died mid-send once its lease passed, and reads it back first', async () => {
    const { add, store, drainAll, command, invoicesIn, truthOf, client } = setup();
    const [invoice] = await invoicesIn('finalized');
    const [id] = await add({ kind: 'record_payment', target: invoice!, body: payment('KILLED') });
    // The dead deliverer: it claimed, marked the send, sent, and died before recording the answer.
    await store.commands.admit(
      () => ({ ok: true, lane: `invoice:${invoice}`, match: ['reference', 'amount', 'date'] }),
      new Date(),
    );
    const now = new Date();
    await store.commands.claim({ owner: 'dead', now, leaseUntil: new Date(now.getTime() + 300), limit: 1 });
    await store.commands.beginSend(id!, 'dead', { now, seenBefore: [] });
    await client.recordPayment(invoice!, payment('KILLED'));
    await new Promise((resolve) => setTimeout(resolve, 350));
    await drainAll({ owner: 'alive' });
    expect((await truthOf('invoice_payments', invoice!)).filter(withReference('KILLED'))).toHaveLength(1);
    expect(await command(id!)).toMatchObject({
      status: 'done',
      attempts: 2,
      lastError: expect.stringContaining('found by reading back'),
    });
  });

  it('stops at a refused token and keeps its commands pending, the attempt not counted', async () => {
    const { add, sim, store, command, invoicesIn } = setup();
    const [invoice] = await invoicesIn('finalized');
    const [id] = await add({ kind: 'record_payment', target: invoice!, body: payment('NO-TOKEN') });
    const client = createTmsClient({ baseUrl: sim.url, apiToken: 'not-the-token', ...quickClient });
    try {
      const logger = createLogger({ level: 'silent' });
      const report = await drainOutbox({
        client,
        outbox: store.commands,
        owner: 't',
        settings: quickCommands,
        logger,
      });
      expect(report.halted).toMatchObject({ code: 'TMS_AUTH_LOGIN_FAILED' });
    } finally {
      await client.close();
    }
    expect(await command(id!)).toMatchObject({
      status: 'pending',
      attempts: 0,
      inDoubt: false,
      lastError: expect.stringContaining('refused'),
    });
  });

  it('delivers the commands of one invoice in their order', async () => {
    const { add, drainAll, command, invoicesIn } = setup();
    const [invoice] = await invoicesIn('preliminary');
    const ids = await add(
      { kind: 'patch_invoice', target: invoice!, body: { notes: 'first' } },
      { kind: 'finalize_invoice', target: invoice! },
      { kind: 'record_payment', target: invoice!, body: payment('AFTER-FINALIZE') },
      { kind: 'cancel_invoice', target: invoice! },
    );
    await drainAll();
    const statuses = await Promise.all(ids.map(async (id) => (await command(id)).status));
    expect(statuses).toEqual(['done', 'done', 'done', 'done']);
    expect(await invoicesIn('cancelled')).toContain(invoice);
  });
});
