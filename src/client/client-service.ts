import type { JsonObject } from '../../schemas/json-object.js';
import type { ClientPatch } from '../../schemas/write-bodies.js';
import { type ApiCalls, type CallOptions, restRequest } from './api-calls.js';
import { listings } from './listings.js';
import type { PageOptions } from './paginate.js';
import { buildPath } from './request-path.js';

type ContactsPath = (typeof listings.clientContacts)['path'];
type AddressBookPath = (typeof listings.clientAddressBook)['path'];

const clientPath = (clientId: string) => buildPath('/client/clients/{clientId}', { clientId });

/** The client service, docs/api.md, Operations. Creates are POSTs: never repeated after an ambiguous failure. */
export function createClientService(api: ApiCalls) {
  return {
    /** Pages of GET /client/clients/ (`since`, `cursor`, `status: 'deleted'`). */
    listClients: (options: PageOptions<'/client/clients/'> = {}) => api.pages(listings.clients, options),
    createClient: (client: JsonObject, call?: CallOptions) =>
      api.write(restRequest('POST', '/client/clients/', call, client)),
    /** Merge-patch of a client. */
    patchClient: (clientId: string, patch: ClientPatch, call?: CallOptions) =>
      api.write(restRequest('PATCH', clientPath(clientId), call, patch)),
    listClientContacts: (options: PageOptions<ContactsPath>) => api.pages(listings.clientContacts, options),
    createClientContact: (clientId: string, contact: JsonObject, call?: CallOptions) =>
      api.write(restRequest('POST', `${clientPath(clientId)}/contacts`, call, contact)),
    /** Pages of one client's address book. */
    clientAddressBook: (options: PageOptions<AddressBookPath>) =>
      api.pages(listings.clientAddressBook, options),
    /** Pages of the global address book; a change re-delivers the client's whole group. */
    globalAddressBook: (options: PageOptions<'/client/addressbook/'> = {}) =>
      api.pages(listings.addressBook, options),
  };
}
