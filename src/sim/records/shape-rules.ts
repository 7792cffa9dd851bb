/**
 * What a record-shapes variant must leave alone, per stream (the names of docs/streams.md): the
 * protocol the engine relies on (the key, the fields other streams are fetched by), and the fields
 * docs/api.md shows (docs/api.md, Records), which keep their names but may be absent, null, of
 * another type, or hold a value outside their enum. Paths are dotted (`client.id`); the elements of
 * an array share their array's path (`taskSettings.flow.action`).
 */
export interface ShapeRules {
  /** The field a record is told apart by, for choices made per record (absent: one record per answer). */
  readonly key?: string;
  /** Paths served exactly as they are; the objects above them keep their name and kind. */
  readonly protected: readonly string[];
  /** Top-level fields docs/api.md shows, with everything under them: same name, sometimes absent, null or retyped. */
  readonly shown: readonly string[];
  /** The record's key when the engine may key it by position instead (docs/records.md): left out of some records in `random`. */
  readonly droppableKey?: string;
  /** Values outside docs/api.md's enum that some records carry, per path of a shown enum field. */
  readonly offEnum?: Readonly<Record<string, readonly string[]>>;
  /** Fields holding records of another stream, served in that stream's shape. */
  readonly embedded?: Readonly<Record<string, string>>;
  /** The stream whose shape this one shares (one record, listed in two places). */
  readonly family?: string;
}

const byId: ShapeRules = { key: 'id', protected: ['id'], shown: [] };
const byPosition = (key: string, shown: readonly string[] = []): ShapeRules => ({
  key,
  protected: [],
  shown,
  droppableKey: key,
});
const single = (key?: string): ShapeRules => ({ key, protected: [], shown: [] });

/** Docs/api.md, Records: the task record in full. */
const taskFields = [
  'index',
  'rideId',
  'trailerId',
  'requested',
  'planned',
  'type',
  'cashOnDelivery',
  'client',
  'address',
  'siteLocation',
  'completion',
  'status',
  'instructions',
  'information',
  'referenceInternal',
  'referenceExternal',
  'order',
  'taskSettings',
  'goodSettings',
];

export const shapeRules: Readonly<Record<string, ShapeRules>> = {
  invoices: { key: 'id', protected: ['id', 'modifiedAt'], shown: [] },
  invoice_lines: byPosition('id'),
  invoice_payments: { key: 'id', protected: ['id'], shown: ['amount', 'date', 'reference'] },
  clients: { key: 'id', protected: ['id', 'modifiedAt'], shown: ['phone'] },
  client_contacts: byId,
  addressbook: byId,
  client_addressbook: { ...byPosition('id'), family: 'addressbook' },
  tasks: {
    key: 'id',
    protected: ['id', 'goods', 'client.id', 'order.id'],
    shown: taskFields,
    offEnum: {
      status: ['onHold', 'paused', 'planned'],
      'taskSettings.scanAllGoodsNonComplianceAction': ['ask'],
      'taskSettings.flow.action': ['scanTrailer'],
    },
  },
  rides: byId,
  goods: byId,
  vehicles: byId,
  trailers: { key: 'id', protected: ['id'], shown: ['licensePlate'] },
  trace_types: { key: 'id', protected: ['id'], shown: ['name', 'percentage', 'color'] },
  packaging: byId,
  completion_statuses: byId,
  activities: byId,
  chat_messages: byId,
  questionnaires: byId,
  logo: byId,
  client_packaging_balances: { key: 'clientId', protected: ['clientId'], shown: ['packagingBalances'] },
  task_packaging_balances: byPosition('taskId'),
  driver_contacts: byPosition('id'),
  chat_contacts: byPosition('id'),
  color_profiles: byPosition('name', ['light', 'dark']),
  settings: single('operatorId'),
  planning: { ...single('operatorId'), embedded: { tasks: 'tasks', rides: 'rides', goods: 'goods' } },
  tms_version: single(),
  dossier_folders: single('orderId'),
};

/** The text a record is told apart by, for choices made per record (stable across its changes). */
export function recordIdentity(stream: string, record: Readonly<Record<string, unknown>>): string {
  const field = shapeRules[stream]?.key;
  const key = field === undefined ? undefined : record[field];
  return `${stream}:${typeof key === 'string' || typeof key === 'number' ? key : ''}`;
}
