import type { StreamName } from '../../config/streams.js';
import type { ListingName } from '../client/index.js';
import type { BodyField } from './body-fields.js';

/** What a command's `target` names. */
export type TargetKind = 'invoice' | 'client' | 'none';

/** The stream whose rows are the targets of a kind: `command add` looks the target up there. */
export const targetStreams = { invoice: 'invoices', client: 'clients' } as const satisfies Record<
  Exclude<TargetKind, 'none'>,
  StreamName
>;

/** How an idempotent kind's effect is read back (read-effect.ts), after a 409 or 404 that followed an attempt in doubt. */
export type EffectCheck =
  | 'finalized'
  | 'cancelled'
  | 'invoice-gone'
  | 'payment-gone'
  | 'invoice-patched'
  | 'client-patched';

/** A create: after an ambiguous failure its own record is looked for in this listing (read-back.ts). */
export interface CreateDefinition {
  readonly listing: ListingName;
  /** The listing's path parameter that takes the target, if any. */
  readonly scope?: 'invoiceId' | 'clientId';
  /** The match key when the command names none; without one a create in doubt needs review. */
  readonly defaultMatch?: readonly string[];
  /**
   * Read the listing before the first send and remember the records that already match, so an
   * identical record that existed before is never taken for the command's own. Only for small,
   * per-target listings (an invoice's payments, a client's contacts), not the whole client list.
   */
  readonly seenBefore: boolean;
}

export interface CommandKindDefinition {
  readonly description: string;
  readonly target: TargetKind;
  readonly method: 'POST' | 'PATCH' | 'DELETE';
  /** docs/api.md path; `{target}` is the target, any other `{name}` a field of the body. */
  readonly path: string;
  /** `sent`: the body is the request's JSON body; `params`: it only fills the path; `none`: no body. */
  readonly body: 'sent' | 'params' | 'none';
  /**
   * The body's fields whose types docs/api.md shows (Records), checked at `command add` and admission;
   * every other field is sent as it is. `complete`: docs/api.md shows the whole body (`command add`
   * notes the other fields). @default none
   */
  readonly fields?: Readonly<Record<string, BodyField>>;
  readonly complete?: boolean;
  readonly create?: CreateDefinition;
  readonly effect?: EffectCheck;
  /** Streams whose partitions run again after the command is done, so the mirror shows it. */
  readonly streams: readonly StreamName[];
  /** Child streams that refresh the target's children (the target joins their queue). */
  readonly children?: readonly StreamName[];
}

/**
 * The command kinds (docs/write-back.md), described as data: one generic deliverer runs each.
 * Creates (POST of a new record) are never repeated blindly; every other kind is idempotent in its
 * effect (merge-patch, delete, a state transition) and repeated after an ambiguous failure.
 */
export const commandKinds = {
  record_payment: {
    description: 'record a payment on an invoice (body: amount, date, reference)',
    target: 'invoice',
    method: 'POST',
    path: '/invoice/invoices/{target}/payments',
    body: 'sent',
    fields: {
      amount: { type: 'number', required: true },
      date: { type: 'date', required: true },
      reference: { type: 'string' },
    },
    complete: true,
    create: {
      listing: 'invoicePayments',
      scope: 'invoiceId',
      defaultMatch: ['reference', 'amount', 'date'],
      seenBefore: true,
    },
    streams: ['invoices', 'invoice_payments'],
    children: ['invoice_payments'],
  },
  remove_payment: {
    description: 'remove a payment from an invoice (body: {"paymentId": "..."})',
    target: 'invoice',
    method: 'DELETE',
    path: '/invoice/invoices/{target}/payments/{paymentId}',
    body: 'params',
    effect: 'payment-gone',
    streams: ['invoices', 'invoice_payments'],
    children: ['invoice_payments'],
  },
  patch_invoice: {
    description: 'merge-patch an invoice (body: the fields to change)',
    target: 'invoice',
    method: 'PATCH',
    path: '/invoice/invoices/{target}',
    body: 'sent',
    effect: 'invoice-patched',
    streams: ['invoices', 'invoice_lines'],
    children: ['invoice_lines'],
  },
  finalize_invoice: {
    description: 'finalize a preliminary invoice',
    target: 'invoice',
    method: 'POST',
    path: '/invoice/invoices/{target}/finalize',
    body: 'none',
    effect: 'finalized',
    streams: ['invoices'],
  },
  cancel_invoice: {
    description: 'cancel an invoice',
    target: 'invoice',
    method: 'POST',
    path: '/invoice/invoices/{target}/cancel',
    body: 'none',
    effect: 'cancelled',
    streams: ['invoices'],
  },
  delete_invoice: {
    description: 'delete a preliminary invoice',
    target: 'invoice',
    method: 'DELETE',
    path: '/invoice/invoices/{target}',
    body: 'none',
    effect: 'invoice-gone',
    streams: ['invoices'],
  },
  create_client: {
    description: 'create a client (body: the client; name a unique field as match key, e.g. vatNumber)',
    target: 'none',
    method: 'POST',
    path: '/client/clients/',
    body: 'sent',
    create: { listing: 'clients', seenBefore: false },
    streams: ['clients'],
  },
  patch_client: {
    description: 'merge-patch a client (body: the fields to change)',
    target: 'client',
    method: 'PATCH',
    path: '/client/clients/{target}',
    body: 'sent',
    fields: { phone: { type: 'string' } },
    effect: 'client-patched',
    streams: ['clients'],
  },
  add_client_contact: {
    description:
      'add a contact to a client (body: the contact; name a unique field as match key, e.g. email)',
    target: 'client',
    method: 'POST',
    path: '/client/clients/{target}/contacts',
    body: 'sent',
    create: { listing: 'clientContacts', scope: 'clientId', seenBefore: true },
    streams: ['clients', 'client_contacts'],
    children: ['client_contacts'],
  },
} as const satisfies Record<string, CommandKindDefinition>;

export type CommandKind = keyof typeof commandKinds;

export const commandKindNames = Object.keys(commandKinds) as CommandKind[];

export function isCommandKind(value: string): value is CommandKind {
  return Object.hasOwn(commandKinds, value);
}

/** The definition of a known kind, widened to the interface. */
export function kindOf(kind: CommandKind): CommandKindDefinition {
  return commandKinds[kind];
}
