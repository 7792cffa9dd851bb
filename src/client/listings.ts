import type { ListingDefinition } from './paginate.js';

/**
 * The paginated REST listings of spec 4.2 and 4.3, by name. `client.pages()` also takes any
 * `{path, record}` object, such as an entry of config/streams.ts.
 */
export const listings = {
  invoices: { path: '/invoice/invoices/', record: 'invoice' },
  invoicePayments: { path: '/invoice/invoices/{invoiceId}/payments', record: 'payment' },
  clients: { path: '/client/clients/', record: 'client' },
  clientContacts: { path: '/client/clients/{clientId}/contacts', record: 'clientContact' },
  clientAddressBook: { path: '/client/clients/{clientId}/addressbook', record: 'addressBookEntry' },
  addressBook: { path: '/client/addressbook/', record: 'addressBookEntry' },
} as const satisfies Record<string, ListingDefinition>;

export type ListingName = keyof typeof listings;
