import {
  Client,
  ClientContact,
  type ClientPatch,
  type NewClient,
  type NewClientContact,
} from '../../schemas/index.js';
import { type ApiCalls, type CallOptions, restRequest } from './api-calls.js';
import { listings } from './listings.js';
import type { PageOptions } from './paginate.js';
import { buildPath } from './request-path.js';

type ContactsPath = (typeof listings.clientContacts)['path'];
type AddressBookPath = (typeof listings.clientAddressBook)['path'];

const clientPath = (clientId: string) => buildPath('/client/clients/{clientId}', { clientId });

/** The client service, spec 4.3. Creates are POSTs: never repeated after an ambiguous failure. */
export function createClientService(api: ApiCalls) {
  return {
    /** Pages of GET /client/clients/ (`since`, `cursor`, `status: 'deleted'`). */
    listClients: (options: PageOptions<'/client/clients/'> = {}) => api.pages(listings.clients, options),
    createClient: (client: NewClient, call?: CallOptions) =>
      api.write(Client, restRequest('POST', '/client/clients/', call, client)),
    /** Merge-patch of a client. */
    patchClient: (clientId: string, patch: ClientPatch, call?: CallOptions) =>
      api.write(Client, restRequest('PATCH', clientPath(clientId), call, patch)),
    listClientContacts: (options: PageOptions<ContactsPath>) => api.pages(listings.clientContacts, options),
    createClientContact: (clientId: string, contact: NewClientContact, call?: CallOptions) =>
      api.write(ClientContact, restRequest('POST', `${clientPath(clientId)}/contacts`, call, contact)),
    /** Pages of one client's address book. */
    clientAddressBook: (options: PageOptions<AddressBookPath>) =>
      api.pages(listings.clientAddressBook, options),
    /** Pages of the global address book; a change re-delivers the client's whole group. */
    globalAddressBook: (options: PageOptions<'/client/addressbook/'> = {}) =>
      api.pages(listings.addressBook, options),
  };
}

export type ClientService = ReturnType<typeof createClientService>;
