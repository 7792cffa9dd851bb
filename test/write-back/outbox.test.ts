import { expect, it } from 'vitest';
import { checkCommand } from '../../src/write-back/admit-command.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';

const now = new Date('2026-11-20T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const check = (command: Parameters<typeof checkCommand>[0] & { id: number }) =>
  checkCommand(command, command.id);
const payment = (reference: string) => ({ amount: 12.5, date: '2026-11-20', reference });

describeOnEachDialect('the command outbox', (fixture) => {
  const store = useStore(fixture);

  it('takes rows a user inserts with plain SQL, with defaults for everything but kind, target and body', async () => {
    const url = await fixture.url();
    await fixture.query(
      url,
      `insert into tms_commands (kind, target, body) values ('record_payment', '0000000042', '{"amount": 125.5, "date": "2026-11-20", "reference": "BANK-1"}')`,
    );
    await store().commands.admit(check, now);
    const [command] = await store().commands.list();
    expect(command).toMatchObject({
      kind: 'record_payment',
      target: '0000000042',
      body: { amount: 125.5, date: '2026-11-20', reference: 'BANK-1' },
      status: 'pending',
      attempts: 0,
      inDoubt: false,
      lane: 'invoice:0000000042',
      match: ['reference', 'amount', 'date'],
    });
    expect(Math.abs(command!.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('fails bad rows inserted by SQL with the reason, and they never block the commands behind them', async () => {
    const url = await fixture.url();
    const rows = [
      `('pay_twice', '1', '{}')`,
      `('record_payment', null, '{"amount": 1, "date": "2026-11-20", "reference": "R"}')`,
      `('patch_client', '7', '[1, 2]')`,
      `('record_payment', '1', '{"amount": 1, "date": "2026-11-20"}')`,
      `('patch_client', '7', '{"phone": "+31 20 123"}')`,
    ];
    for (const row of rows)
      await fixture.query(url, `insert into tms_commands (kind, target, body) values ${row}`);
    expect(await store().commands.admit(check, now)).toEqual({ admitted: 1, refused: 4 });
    const listed = (await store().commands.list()).reverse();
    expect(listed.map((command) => [command.status, command.lastError])).toEqual([
      ['failed', expect.stringContaining('unknown kind "pay_twice"')],
      ['failed', expect.stringContaining('needs a target')],
      ['failed', expect.stringContaining('body must be a JSON object, got an array')],
      ['failed', expect.stringContaining('match field "reference"')],
      ['pending', null],
    ]);
    const claimed = await store().commands.claim({ owner: 'a', now, leaseUntil: later(1000), limit: 10 });
    expect(claimed.map((command) => command.kind)).toEqual(['patch_client']);
  });

  it('claims one command per lane, in id order, each once; the next of a lane after the first settles', async () => {
    const commands = store().commands;
    await commands.add([
      { kind: 'record_payment', target: '1', body: payment('A') },
      { kind: 'finalize_invoice', target: '2' },
      { kind: 'record_payment', target: '1', body: payment('B') },
    ]);
    await commands.admit(check, now);
    const first = await commands.claim({ owner: 'a', now, leaseUntil: later(1000), limit: 10 });
    expect(first.map((command) => command.id)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(first.map((command) => [command.target, command.status, command.attempts, command.owner])).toEqual(
      [
        ['1', 'in_flight', 1, 'a'],
        ['2', 'in_flight', 1, 'a'],
      ],
    );
    expect(await commands.claim({ owner: 'b', now, leaseUntil: later(1000), limit: 10 })).toEqual([]);
    const settled = await commands.settle(first[0]!.id, 'a', {
      status: 'done',
      now,
      attempts: 1,
      inDoubt: false,
      createdId: 'P1',
    });
    expect(settled).toBe(true);
    const next = await commands.claim({ owner: 'b', now, leaseUntil: later(1000), limit: 10 });
    expect(next.map((command) => (command.body as { reference: string }).reference)).toEqual(['B']);
  });

  it('lets another deliverer take over a command whose lease passed; the first one can then change nothing', async () => {
    const commands = store().commands;
    const [id] = await commands.add([{ kind: 'record_payment', target: '1', body: payment('A') }]);
    await commands.admit(check, now);
    await commands.claim({ owner: 'a', now, leaseUntil: later(1000), limit: 1 });
    expect(await commands.beginSend(id!, 'a', { now, seenBefore: ['P0'] })).toBe(true);
    expect(await commands.claim({ owner: 'b', now: later(999), leaseUntil: later(5000), limit: 1 })).toEqual(
      [],
    );
    const [taken] = await commands.claim({ owner: 'b', now: later(1001), leaseUntil: later(5000), limit: 1 });
    expect(taken).toMatchObject({ id, owner: 'b', attempts: 2, inDoubt: true, seenBefore: ['P0'] });
    expect(await commands.renew(id!, 'a', later(9000))).toBe(false);
    expect(await commands.beginSend(id!, 'a', { now })).toBe(false);
    expect(await commands.settle(id!, 'a', { status: 'done', now, attempts: 2, inDoubt: false })).toBe(false);
    expect(await commands.renew(id!, 'b', later(9000))).toBe(true);
  });

  it('waits out a retry time, counts by status and kind, and lets a person resolve a command that needs review', async () => {
    const commands = store().commands;
    const [a, b] = await commands.add([
      { kind: 'record_payment', target: '1', body: payment('A') },
      { kind: 'create_client', body: { name: 'Acme' } },
    ]);
    await commands.admit(check, now);
    await commands.claim({ owner: 'a', now, leaseUntil: later(1000), limit: 10 });
    await commands.settle(a!, 'a', {
      status: 'pending',
      now,
      attempts: 1,
      inDoubt: true,
      lastError: 'reset',
      nextAttemptAt: later(500),
    });
    await commands.settle(b!, 'a', {
      status: 'needs_review',
      now,
      attempts: 1,
      inDoubt: true,
      lastError: 'lost',
    });
    expect(await commands.nextDue()).toEqual(later(500));
    expect(await commands.claim({ owner: 'a', now: later(499), leaseUntil: later(2000), limit: 10 })).toEqual(
      [],
    );
    expect(await commands.counts()).toEqual([
      { status: 'needs_review', kind: 'create_client', count: 1 },
      { status: 'pending', kind: 'record_payment', count: 1 },
    ]);
    const resolved = await commands.resolve(b!, 'done', 'found by hand', 'C9');
    expect(resolved).toMatchObject({ status: 'done', createdId: 'C9', lastError: 'found by hand' });
    expect(await commands.resolve(a!, 'done', 'not final yet')).toBeUndefined();
    const [retried] = await commands.claim({
      owner: 'a',
      now: later(500),
      leaseUntil: later(2000),
      limit: 10,
    });
    expect(retried).toMatchObject({ id: a, inDoubt: true, attempts: 2, lastError: 'reset' });
  });

  it('says a delivery pass has work for a new row, a retry whose time came and a lease that passed, and for nothing else', async () => {
    const commands = store().commands;
    expect(await commands.due(now)).toBe(false);
    const [a, b] = await commands.add([
      { kind: 'record_payment', target: '1', body: payment('A') },
      { kind: 'record_payment', target: '2', body: payment('B') },
    ]);
    expect(await commands.due(now)).toBe(true);
    await commands.admit(check, now);
    await commands.claim({ owner: 'a', now, leaseUntil: later(1000), limit: 10 });
    await commands.settle(a!, 'a', { status: 'done', now, attempts: 1, inDoubt: false });
    expect(await commands.due(now)).toBe(false);
    expect(await commands.due(later(1001))).toBe(true);
    await commands.settle(b!, 'a', {
      status: 'pending',
      now,
      attempts: 1,
      inDoubt: false,
      lastError: 'reset',
      nextAttemptAt: later(500),
    });
    expect(await commands.due(later(499))).toBe(false);
    expect(await commands.due(later(500))).toBe(true);
  });
});
