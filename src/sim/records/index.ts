// tms-sim's own record shapes (one TMS's choice among many; docs/simulator.md), by name: the
// simulator imports its record schemas and write bodies from here, never from schemas/ (protocol only).
import { ChatContact, ChatMessage } from './chat.js';
import { AddressBookEntry, Client, ClientContact } from './client.js';
import { DossierFolder } from './dossier.js';
import { Good } from './good.js';
import { Invoice, InvoiceDetail, InvoiceLine } from './invoice.js';
import {
  Activity,
  CompletionStatus,
  DriverContact,
  Logo,
  Packaging,
  TmsVersion,
  TraceType,
  Trailer,
  Vehicle,
} from './master-data.js';
import { ColorProfile, MobileSettings } from './operator-settings.js';
import { ClientPackagingBalance, TaskPackagingBalance } from './packaging-balance.js';
import { Payment } from './payment.js';
import { Planning } from './planning.js';
import { Questionnaire } from './questionnaire.js';
import { Ride } from './ride.js';
import { Task } from './task.js';

/** Every record tms-sim serves, by name: the shapes it validates its own data and write bodies against. */
export const recordSchemas = {
  invoice: Invoice,
  invoiceDetail: InvoiceDetail,
  invoiceLine: InvoiceLine,
  payment: Payment,
  client: Client,
  clientContact: ClientContact,
  addressBookEntry: AddressBookEntry,
  task: Task,
  ride: Ride,
  good: Good,
  planning: Planning,
  taskPackagingBalance: TaskPackagingBalance,
  clientPackagingBalance: ClientPackagingBalance,
  chatMessage: ChatMessage,
  chatContact: ChatContact,
  mobileSettings: MobileSettings,
  colorProfile: ColorProfile,
  vehicle: Vehicle,
  trailer: Trailer,
  traceType: TraceType,
  packaging: Packaging,
  completionStatus: CompletionStatus,
  activity: Activity,
  driverContact: DriverContact,
  questionnaire: Questionnaire,
  tmsVersion: TmsVersion,
  logo: Logo,
  dossierFolder: DossierFolder,
} as const;

export type RecordName = keyof typeof recordSchemas;

export * from './chat.js';
export * from './client.js';
export * from './dossier.js';
export * from './driver-mutations.js';
export * from './good.js';
export * from './invoice.js';
export * from './master-data.js';
export * from './operator-settings.js';
export * from './packaging-balance.js';
export * from './payment.js';
export * from './planning.js';
export * from './questionnaire.js';
export * from './record-parts.js';
export * from './ride.js';
export * from './task.js';
