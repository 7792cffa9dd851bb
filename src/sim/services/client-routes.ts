import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ClientRecord } from '../data/client-generator.js';
import { Client, ClientPatch, NewClient, NewClientContact } from '../records/index.js';
import { createBodyChecker, requireObject, schemaProblems, validationFailed } from './body-checker.js';
import { mergePatch } from './merge-patch.js';
import { type IdParams, type ServiceDeps, sendJson, singleEnvelope } from './service-deps.js';

const checkNewClient = createBodyChecker(NewClient);
const checkNewContact = createBodyChecker(NewClientContact);
const clientCheck = TypeCompiler.Compile(Client);

/** The Client service, docs/api.md, Operations. */
export function registerClientRoutes(app: FastifyInstance, deps: ServiceDeps): void {
  const { guard, listings, variant } = deps;
  const clients = deps.data.clients;
  const clientOf = (request: FastifyRequest) => {
    guard.requireService(request, 'client');
    return clients.find((request.params as IdParams).clientId!);
  };
  const query = (request: FastifyRequest) => request.query as Record<string, unknown>;
  const base = '/client/clients';

  app.get(`${base}/`, (request, reply) => {
    guard.requireService(request, 'client');
    return sendJson(reply, 200, listings.page(clients.listing(), query(request)));
  });
  app.post(`${base}/`, (request, reply) => {
    guard.requireService(request, 'client');
    const index = clients.create(newClientFields(checkNewClient(request.body)));
    return sendJson(reply, 201, singleEnvelope(clients.listJson(index), variant));
  });
  app.patch(`${base}/:clientId`, (request, reply) => {
    const index = clientOf(request);
    clients.update(index, patchedClient(clients.table.get(index)!.client, request.body));
    return sendJson(reply, 200, singleEnvelope(clients.listJson(index), variant));
  });
  app.get(`${base}/:clientId/contacts`, (request, reply) =>
    sendJson(reply, 200, listings.page(clients.contacts(clientOf(request)), query(request))),
  );
  app.post(`${base}/:clientId/contacts`, (request, reply) => {
    const contact = clients.addContact(clientOf(request), checkNewContact(request.body));
    return sendJson(reply, 201, singleEnvelope(clients.contactJson(contact), variant));
  });
  app.get(`${base}/:clientId/addressbook`, (request, reply) =>
    sendJson(reply, 200, listings.page(clients.addressbook(clientOf(request)), query(request))),
  );
  app.get('/client/addressbook/', (request, reply) => {
    guard.requireService(request, 'client');
    return sendJson(reply, 200, listings.page(clients.globalAddressbook(), query(request)));
  });
}

function newClientFields(body: NewClient): Omit<ClientRecord, 'id' | 'status' | 'modifiedAt'> {
  return {
    name: body.name,
    email: body.email ?? '',
    phone: body.phone ?? '',
    vatNumber: body.vatNumber ?? '',
    address: body.address ?? { street: '', houseNumber: '', postalCode: '', city: '', country: 'NL' },
    categories: body.categories ?? [],
  };
}

/** Merge-patch of the client's own fields; the merged client must still be a valid client (else 422). */
function patchedClient(current: ClientRecord, body: unknown): ClientRecord {
  const patch = requireObject(body);
  const keys = Object.keys(patch);
  const unknown = keys.filter((key) => !(key in ClientPatch.properties));
  if (keys.length === 0) throw validationFailed([{ field: '(body)', message: 'send at least one field' }]);
  if (unknown.length > 0)
    throw validationFailed(unknown.map((field) => ({ field, message: 'unknown or read-only field' })));
  const merged = mergePatch(current, patch) as ClientRecord;
  const problems = schemaProblems(clientCheck.Errors(merged));
  if (problems.length > 0) throw validationFailed(problems);
  return merged;
}
