import type { ListingDefinition } from './paginate.js';

/**
 * The paginated REST listings of docs/api.md, Operations, by name. `client.pages()` also takes any
 * `{path}` object, such as an entry of config/streams.ts.
 */
export const listings = {
  invoices: { path: '/invoice/invoices/' },
  invoicePayments: { path: '/invoice/invoices/{invoiceId}/payments' },
  clients: { path: '/client/clients/' },
  clientContacts: { path: '/client/clients/{clientId}/contacts' },
  clientAddressBook: { path: '/client/clients/{clientId}/addressbook' },
  addressBook: { path: '/client/addressbook/' },
} as const satisfies Record<string, ListingDefinition>;

export type ListingName = keyof typeof listings;
