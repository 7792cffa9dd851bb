import type { StreamTruth } from '../../../src/sim/stream-truth.js';
import type { Command } from '../../../src/store/outbox/command.js';

type Row = Record<string, unknown>;

/**
 * The property's invariants, against the simulator's truth: nothing pending; every record a done
 * create made exists exactly once upstream (its id the one recorded); no create duplicated, and a
 * failed one never applied; every failed command carries the TMS's reason (or why it was refused);
 * `needs_review` only where nobody could tell; the effects of done idempotent commands hold, in
 * command order per target. Answers the problems found.
 */
export function checkUpstream(
  commands: readonly Command[],
  truth: StreamTruth,
  strictReview: boolean,
): string[] {
  const problems: string[] = [];
  const say = (command: Command, problem: string) =>
    problems.push(
      `command ${command.id} ${command.kind} ${command.target ?? ''} [${command.status}]: ${problem}`,
    );
  for (const command of commands) {
    if (command.status === 'pending' || command.status === 'in_flight') say(command, 'left undelivered');
    if (command.status === 'failed' && !carriesReason(command.lastError))
      say(command, `failed without the TMS's reason: ${command.lastError}`);
    if (command.status === 'needs_review' && !reviewable(command, strictReview))
      say(command, `needs review without cause: ${command.lastError}`);
  }
  checkCreates(commands, truth, say);
  checkEffects(commands, truth, say);
  return problems;
}

function carriesReason(error: string | null): boolean {
  if (!error) return false;
  return (
    error.startsWith('refused: ') ||
    /-> 4\d\d: .*the TMS answered: \{/.test(error) ||
    error.includes('gave up after')
  );
}

/** A create without a match key; with another TMS's shapes also a record the TMS lists without the fields compared. */
function reviewable(command: Command, strict: boolean): boolean {
  if (!command.inDoubt) return false;
  if (command.match === null && command.kind !== 'record_payment') return true;
  return !strict && /without comparable|lacks fields/.test(command.lastError ?? '');
}

/** Upstream records a create may have made, found by the fields it wrote. */
function upstreamOf(command: Command, truth: StreamTruth): Row[] {
  const body = command.body as Row;
  const scope = (stream: string) => (truth[stream]?.[command.target ?? '']?.records ?? []) as Row[];
  if (command.kind === 'record_payment')
    return scope('invoice_payments').filter((row) => row.reference === body.reference);
  if (command.kind === 'add_client_contact')
    return scope('client_contacts').filter((row) => row.name === body.name);
  return ((truth.clients?.['']?.records ?? []) as Row[]).filter((row) => row.vatNumber === body.vatNumber);
}

function checkCreates(
  commands: readonly Command[],
  truth: StreamTruth,
  say: (command: Command, problem: string) => void,
) {
  const groups = new Map<string, Command[]>();
  for (const command of commands) {
    if (!['record_payment', 'add_client_contact', 'create_client'].includes(command.kind)) continue;
    const key = `${command.kind}|${command.target}|${JSON.stringify(command.body)}`;
    groups.set(key, [...(groups.get(key) ?? []), command]);
  }
  const createdIds = new Set<string>();
  for (const group of groups.values()) {
    const upstream = upstreamOf(group[0]!, truth);
    const done = group.filter((command) => command.status === 'done');
    const review = group.filter((command) => command.status === 'needs_review').length;
    if (upstream.length < done.length || upstream.length > done.length + review)
      say(
        group[0]!,
        `${upstream.length} upstream for ${done.length} done and ${review} in review (of ${group.length})`,
      );
    for (const command of done) {
      if (command.createdId === null || !upstream.some((row) => String(row.id) === command.createdId))
        say(
          command,
          `created id ${command.createdId} is not one of ${upstream.map((row) => row.id).join(', ')}`,
        );
      if (command.createdId !== null && createdIds.has(command.createdId))
        say(command, `created id ${command.createdId} twice`);
      if (command.createdId !== null) createdIds.add(command.createdId);
    }
  }
}

function checkEffects(
  commands: readonly Command[],
  truth: StreamTruth,
  say: (command: Command, problem: string) => void,
) {
  const invoices = (truth.invoices?.['']?.records ?? []) as Row[];
  const deleted = new Set(truth.invoices?.['']?.deletedIds ?? []);
  const invoice = (id: string | null) => invoices.find((row) => String(row.id) === id);
  const lastDone = new Map<string, Command>();
  for (const command of commands.toSorted((a, b) => a.id - b.id)) {
    if (command.status !== 'done') continue;
    const status = invoice(command.target)?.status;
    if (command.kind === 'finalize_invoice' && !['finalized', 'cancelled'].includes(String(status)))
      say(command, `the invoice reads ${status}`);
    if (command.kind === 'cancel_invoice' && status !== 'cancelled')
      say(command, `the invoice reads ${status}`);
    if (command.kind === 'delete_invoice' && !deleted.has(command.target ?? ''))
      say(command, 'the invoice is not deleted');
    if (command.kind === 'remove_payment') {
      const paymentId = (command.body as Row).paymentId;
      const payments = (truth.invoice_payments?.[command.target ?? '']?.records ?? []) as Row[];
      if (payments.some((row) => row.id === paymentId)) say(command, `payment ${paymentId} is still there`);
    }
    if (command.kind === 'patch_invoice' || command.kind === 'patch_client')
      for (const field of Object.keys(command.body as Row))
        lastDone.set(`${command.target}|${field}`, command);
  }
  for (const [key, command] of lastDone) {
    const field = key.slice(key.lastIndexOf('|') + 1);
    const record =
      command.kind === 'patch_invoice'
        ? invoice(command.target)
        : ((truth.clients?.['']?.records ?? []) as Row[]).find((row) => String(row.id) === command.target);
    const expected = (command.body as Row)[field];
    if (record && record[field] !== expected)
      say(command, `${field} reads ${String(record[field])}, not ${String(expected)} (the last done patch)`);
  }
}
