import type { ColumnDefinition, RecordKey, StreamDefinition } from './stream-definition.js';

const text = (path: string): ColumnDefinition => ({ type: 'text', path });
const integer = (path: string): ColumnDefinition => ({ type: 'integer', path });
const real = (path: string): ColumnDefinition => ({ type: 'real', path });
const number = (path: string): ColumnDefinition => ({ type: 'number', path });
const bool = (path: string): ColumnDefinition => ({ type: 'boolean', path });
const timestamp = (path: string): ColumnDefinition => ({ type: 'timestamp', path });
const date = (path: string): ColumnDefinition => ({ type: 'date', path });

/** The record's `id`: docs/api.md shows it, or an operation takes it in its path (`/rides/{id}`). */
const byId: RecordKey = { field: 'id' };
/** A field when present, else the position in the complete list: docs/api.md shows no identity. */
const byFieldOrPosition = (field: string): RecordKey => ({ field, orPosition: true });
/** One record per request: the operator, the order asked for, or `current`. */
const byRequest: RecordKey = { fromRequest: true };

/** docs/api.md, Records: invoices, payments, clients and contacts carry `id`, `modifiedAt` and a sequence. */
const modifiedAt = { modified_at: timestamp('modifiedAt') };

/** Light or dark half of a color profile (docs/api.md, Records). */
const colors = (mode: 'light' | 'dark') => ({
  [`${mode}_primary_background`]: text(`${mode}.primaryBackground`),
  [`${mode}_primary_text`]: text(`${mode}.primaryText`),
  [`${mode}_secondary_background`]: text(`${mode}.secondaryBackground`),
  [`${mode}_secondary_text`]: text(`${mode}.secondaryText`),
  [`${mode}_highlight`]: text(`${mode}.highlight`),
});

/**
 * The stream catalogue (docs/streams.md): data, not code. One generic engine runs every entry.
 * Each entry names the record's key (protocol: read strictly) and typed columns only for the
 * fields docs/api.md shows; every other field gets an inferred column (docs/store.md).
 */
const catalogue = {
  invoices: {
    strategy: 'sequence',
    description: 'Invoices, incrementally by sequence, with soft deletes.',
    path: '/invoice/invoices/',
    softDeletes: true,
    key: byId,
    columns: modifiedAt,
  },
  invoice_lines: {
    strategy: 'child',
    description: 'Invoice lines, from the detail of every changed invoice.',
    parent: 'invoices',
    path: '/invoice/invoices/{id}',
    source: 'detail',
    itemsField: 'lines',
    scopeColumn: 'invoice_id',
    key: byFieldOrPosition('id'),
    columns: {},
  },
  invoice_payments: {
    strategy: 'child',
    description: 'Payments of every changed invoice.',
    parent: 'invoices',
    path: '/invoice/invoices/{id}/payments',
    source: 'listing',
    scopeColumn: 'invoice_id',
    key: byId,
    columns: {
      amount: number('amount'),
      date: date('date'),
      reference: text('reference'),
      ...modifiedAt,
    },
  },
  clients: {
    strategy: 'sequence',
    description: 'Clients, incrementally by sequence, with soft deletes.',
    path: '/client/clients/',
    softDeletes: true,
    key: byId,
    columns: { phone: text('phone'), ...modifiedAt },
  },
  client_contacts: {
    strategy: 'child',
    description: 'Contacts of every changed client.',
    parent: 'clients',
    path: '/client/clients/{id}/contacts',
    source: 'listing',
    scopeColumn: 'client_id',
    key: byId,
    columns: modifiedAt,
  },
  client_addressbook: {
    strategy: 'child',
    description: 'The address book of every changed client.',
    parent: 'clients',
    path: '/client/clients/{id}/addressbook',
    source: 'listing',
    scopeColumn: 'client_id',
    key: byFieldOrPosition('id'),
    columns: {},
  },
  addressbook: {
    strategy: 'sequence',
    description: 'The global address book; a change re-delivers the whole group of a client.',
    path: '/client/addressbook/',
    softDeletes: false,
    key: byId,
    columns: {},
  },
  tasks: {
    strategy: 'snapshot',
    description: 'Tasks of each operator.',
    path: '/driver-api/tasks/',
    scope: 'operator',
    key: byId,
    columns: {
      task_index: integer('index'),
      status: text('status'),
      ride_id: text('rideId'),
      trailer_id: text('trailerId'),
      requested_start: timestamp('requested.start'),
      requested_end: timestamp('requested.end'),
      planned_start: timestamp('planned.start'),
      planned_end: timestamp('planned.end'),
      type_id: text('type.id'),
      type_code: text('type.code'),
      type_name: text('type.name'),
      type_is_start: bool('type.isStart'),
      type_is_end: bool('type.isEnd'),
      activity_id: text('type.activityId'),
      cash_on_delivery: number('cashOnDelivery'),
      client_id: text('client.id'),
      client_name: text('client.name'),
      client_phone: text('client.phone'),
      address_name: text('address.name'),
      address_contact: text('address.contact'),
      address_street: text('address.street'),
      address_house_number: text('address.houseNumber'),
      address_postal_code: text('address.postalCode'),
      address_premise: text('address.premise'),
      address_city: text('address.city'),
      address_country_name: text('address.country.name'),
      address_country_code: text('address.country.code'),
      address_phone: text('address.phone'),
      address_mobile: text('address.mobile'),
      address_annotation: text('address.annotation'),
      address_latitude: real('address.location.latitude'),
      address_longitude: real('address.location.longitude'),
      address_location_number: real('address.location.number'),
      site_latitude: real('siteLocation.latitude'),
      site_longitude: real('siteLocation.longitude'),
      completed_start: timestamp('completion.when.start'),
      completed_end: timestamp('completion.when.end'),
      completion_status_id: text('completion.completionStatusId'),
      completion_contact_name: text('completion.contactName'),
      completion_comments: text('completion.comments'),
      instructions: text('instructions'),
      information: text('information'),
      reference_internal: text('referenceInternal'),
      reference_external: text('referenceExternal'),
      order_id: text('order.id'),
      order_categories: text('order.categories'),
      product_id: text('order.product.id'),
      product_name: text('order.product.name'),
      final_delivery_date: timestamp('taskSettings.finalDeliveryDate'),
    },
  },
  rides: {
    strategy: 'snapshot',
    description: 'Rides of each operator.',
    path: '/driver-api/rides/',
    scope: 'operator',
    key: byId,
    columns: {},
  },
  planning: {
    strategy: 'snapshot',
    description: 'The planning object of each operator (one row per operator, `id` = the operator).',
    path: '/driver-api/planning/',
    scope: 'operator',
    single: true,
    key: byRequest,
    columns: {},
  },
  goods: {
    strategy: 'snapshot',
    description: 'Goods referenced by the synced tasks of each operator.',
    path: '/driver-api/goods/',
    scope: 'operator',
    idsFrom: { stream: 'tasks', path: 'goods.id', param: 'ids', batch: 100 },
    key: byId,
    columns: {},
  },
  task_packaging_balances: {
    strategy: 'snapshot',
    description: 'Packaging balances of the synced tasks of each operator.',
    path: '/driver-api/tasks/packaging-balances',
    scope: 'operator',
    idsFrom: { stream: 'tasks', path: 'id', param: 'ids', batch: 100 },
    key: byFieldOrPosition('taskId'),
    columns: {},
  },
  client_packaging_balances: {
    strategy: 'snapshot',
    description: 'Packaging balances of the clients of the synced tasks of each operator.',
    path: '/driver-api/clients/packaging-balances',
    scope: 'operator',
    idsFrom: { stream: 'tasks', path: 'client.id', param: 'ids', batch: 100 },
    key: { field: 'clientId' },
    columns: {},
  },
  chat_messages: {
    strategy: 'window',
    description: 'Chat messages of each operator, by time window with an overlap for late arrivals.',
    path: '/driver-api/chat/messages',
    scope: 'operator',
    fromParam: 'fromMoment',
    toParam: 'toMoment',
    key: byId,
    columns: {},
  },
  settings: {
    strategy: 'snapshot',
    description: 'Mobile settings of each operator (one row per operator, `id` = the operator).',
    path: '/driver-api/settings/',
    scope: 'operator',
    single: true,
    key: byRequest,
    columns: {},
  },
  color_profiles: {
    strategy: 'snapshot',
    description: 'Color profiles of each operator.',
    path: '/driver-api/settings/color-profile',
    scope: 'operator',
    key: byFieldOrPosition('name'),
    columns: { ...colors('light'), ...colors('dark') },
  },
  vehicles: masterData('/driver-api/vehicles/', byId, {}),
  trailers: masterData('/driver-api/trailers/', byId, { license_plate: text('licensePlate') }),
  trace_types: masterData('/driver-api/trace-types', byId, {
    name: text('name'),
    percentage: integer('percentage'),
    color: integer('color'),
  }),
  packaging: masterData('/driver-api/packaging', byId, {}),
  completion_statuses: masterData('/driver-api/completion-statuses', byId, {}),
  activities: masterData('/driver-api/activities/', byId, {}),
  driver_contacts: masterData('/driver-api/contacts', byFieldOrPosition('id'), {}),
  chat_contacts: masterData('/driver-api/chat/contacts', byFieldOrPosition('id'), {}),
  questionnaires: {
    ...masterData('/driver-api/questionnaires/', byId, {}),
    query: { latest: 'true' },
  },
  tms_version: {
    ...masterData('/driver-api/settings/version', byRequest, {}),
    description: 'The TMS version (one row, `id` = `current`).',
    single: true,
  },
  dossier_folders: {
    strategy: 'snapshot',
    description: 'Dossier folders of the orders the synced tasks reference (`id` = the order).',
    path: '/driver-api/dossier/orders/{id}',
    scope: 'operator',
    single: true,
    idsFrom: { stream: 'tasks', path: 'order.id', param: 'path', batch: 1 },
    key: byRequest,
    columns: {},
  },
} as const satisfies Record<string, StreamDefinition>;

export const streams = withOneShape(catalogue);

export type StreamName = keyof typeof streams;

/** Every field a stream definition of any strategy may have. */
type AnyStreamFields = FieldsOfEach<StreamDefinition>;
type FieldsOfEach<Union> = Union extends unknown ? keyof Union : never;

/**
 * The catalogue's entries with one set of fields in one order (those a strategy lacks undefined),
 * so V8 gives them all one hidden class. With a shape per strategy and options, the engine's
 * optimized code met a new shape with each new stream of a plan and was thrown away and compiled
 * again. In an idle cycle at 500 operators: deoptimizations 34 -> 26-30, TurboFan's compiling
 * ~6% less, ~1% less CPU (docs/performance-history.md, "2026-12-04 (two cores)"). A definition
 * reads the same either way.
 */
function withOneShape<T extends Record<string, StreamDefinition>>(entries: T): T {
  const shaped: Record<string, StreamDefinition> = {};
  for (const [name, definition] of Object.entries(entries)) {
    const fields: Partial<Record<AnyStreamFields, unknown>> = definition;
    shaped[name] = {
      strategy: fields.strategy,
      description: fields.description,
      path: fields.path,
      key: fields.key,
      columns: fields.columns,
      softDeletes: fields.softDeletes,
      parent: fields.parent,
      source: fields.source,
      itemsField: fields.itemsField,
      scopeColumn: fields.scopeColumn,
      scope: fields.scope,
      query: fields.query,
      single: fields.single,
      idsFrom: fields.idsFrom,
      fromParam: fields.fromParam,
      toParam: fields.toParam,
    } satisfies Record<AnyStreamFields, unknown> as StreamDefinition;
  }
  return shaped as T;
}

function masterData(path: string, key: RecordKey, columns: Record<string, ColumnDefinition>) {
  return {
    strategy: 'snapshot',
    description: `Master data from ${path}.`,
    path,
    scope: 'global',
    key,
    columns,
  } as const satisfies StreamDefinition;
}
