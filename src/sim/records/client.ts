import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Location, Nullable, Sequence } from './record-parts.js';

// docs/api.md shows only `id`, `modifiedAt` and the sequence of clients, contacts and address-book
// entries (2.5), and `phone` in the client patch example (2.4); the rest is chosen here.

export const PostalAddress = Type.Object({
  street: Type.String(),
  houseNumber: Type.String(),
  postalCode: Type.String(),
  city: Type.String(),
  country: Type.String({ minLength: 2, maxLength: 2 }),
});

const ClientFields = {
  name: Type.String({ minLength: 1 }),
  email: Type.String(),
  phone: Type.String(),
  vatNumber: Type.String(),
  address: PostalAddress,
  categories: Type.Array(Type.String()),
};

/** Client as listed by GET /client/clients/. */
export const Client = Type.Object({
  id: Type.String(),
  ...ClientFields,
  status: Type.Union([Type.Literal('active'), Type.Literal('deleted')]),
  modifiedAt: DateTime,
  sequence: Type.Optional(Sequence),
});
export type Client = Static<typeof Client>;

/** POST /client/clients/ body. */
export const NewClient = Type.Object({
  name: ClientFields.name,
  email: Type.Optional(ClientFields.email),
  phone: Type.Optional(ClientFields.phone),
  vatNumber: Type.Optional(ClientFields.vatNumber),
  address: Type.Optional(PostalAddress),
  categories: Type.Optional(ClientFields.categories),
});
export type NewClient = Static<typeof NewClient>;

/** PATCH /client/clients/{id} body (merge-patch), e.g. `{"phone": "..."}` as in docs/api.md, Records. */
export const ClientPatch = Type.Partial(Type.Object(ClientFields), { minProperties: 1 });
export type ClientPatch = Static<typeof ClientPatch>;

const ContactFields = {
  name: Type.String({ minLength: 1 }),
  email: Type.String(),
  phone: Type.String(),
  role: Type.String(),
};

/** A contact of a client, GET /client/clients/{id}/contacts. */
export const ClientContact = Type.Object({
  id: Type.String(),
  clientId: Type.String(),
  ...ContactFields,
  modifiedAt: DateTime,
  sequence: Type.Optional(Sequence),
});
export type ClientContact = Static<typeof ClientContact>;

/** POST /client/clients/{id}/contacts body. */
export const NewClientContact = Type.Object({
  name: ContactFields.name,
  email: Type.Optional(ContactFields.email),
  phone: Type.Optional(ContactFields.phone),
  role: Type.Optional(ContactFields.role),
});
export type NewClientContact = Static<typeof NewClientContact>;

/**
 * An address-book entry. Entries belong to a client (`clientId`); the global address book lists
 * all of them and re-delivers a client's whole group when one entry changes.
 */
export const AddressBookEntry = Type.Object({
  id: Type.String(),
  clientId: Nullable(Type.String()),
  name: Type.String(),
  ...PostalAddress.properties,
  location: Nullable(Location),
  modifiedAt: DateTime,
  sequence: Type.Optional(Sequence),
});
export type AddressBookEntry = Static<typeof AddressBookEntry>;
