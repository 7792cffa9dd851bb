import { isDeepStrictEqual } from 'node:util';
import { Value } from '@sinclair/typebox/value';
import { type RecordName, recordSchemas } from '../../src/sim/records/index.js';

type Json = Record<string, unknown>;

/** tms-sim's own schema of each stream's records. */
export const schemaOf: Record<string, RecordName> = {
  invoices: 'invoice',
  invoice_lines: 'invoiceLine',
  invoice_payments: 'payment',
  clients: 'client',
  client_contacts: 'clientContact',
  client_addressbook: 'addressBookEntry',
  addressbook: 'addressBookEntry',
  tasks: 'task',
  rides: 'ride',
  planning: 'planning',
  goods: 'good',
  task_packaging_balances: 'taskPackagingBalance',
  client_packaging_balances: 'clientPackagingBalance',
  chat_messages: 'chatMessage',
  settings: 'mobileSettings',
  color_profiles: 'colorProfile',
  vehicles: 'vehicle',
  trailers: 'trailer',
  trace_types: 'traceType',
  packaging: 'packaging',
  completion_statuses: 'completionStatus',
  activities: 'activity',
  driver_contacts: 'driverContact',
  chat_contacts: 'chatContact',
  questionnaires: 'questionnaire',
  tms_version: 'tmsVersion',
  dossier_folders: 'dossierFolder',
};

/** Valid against tms-sim's own schema and without a field it does not name (at any depth). */
export function ownShape(stream: string, record: Json): boolean {
  const schema = recordSchemas[schemaOf[stream]!];
  return (
    Value.Check(schema, record) && isDeepStrictEqual(Value.Clean(schema, structuredClone(record)), record)
  );
}
