import type {
  Activity,
  ChatContact,
  ChatMessage,
  ClientPackagingBalance,
  ColorProfile,
  CompletionStatus,
  DossierFile,
  DriverContact,
  Good,
  Logo,
  MobileSettings,
  Packaging,
  ProcessedMutation,
  Questionnaire,
  Ride,
  Task,
  TaskClient,
  TmsVersion,
  TraceType,
  Trailer,
  Vehicle,
} from '../records/index.js';
import type { DriverIds } from './driver-ids.js';

/** A packaging amount per packaging id, as in the balance records. */
export interface PackagingAmount {
  packagingId: string;
  balance: number;
}

/** Writes docs/api.md gives no listing for: kept so tests and the report can see them. */
export interface WriteLog {
  refuelingStops: unknown[];
  activityChanges: unknown[];
  trackingPositions: unknown[];
  pushRegistrations: Map<string, unknown>;
}

/** The Driver API data of one operator. Maps keep insertion order, which is the listing order. */
export interface OperatorData {
  readonly operatorId: string;
  tasks: Map<string, Task>;
  rides: Map<number, Ride>;
  goods: Map<string, Good>;
  /** Opening packaging balance per task; the listing adds the task's packaging transactions. */
  taskOpeningBalances: Map<string, PackagingAmount[]>;
  chat: Map<string, ChatMessage>;
  settings: MobileSettings;
  colorProfiles: ColorProfile[];
  /** When tasks, rides or goods last changed: the planning's `generatedAt`. */
  planningChangedAt: string;
  writes: WriteLog;
}

/** Global master data (operations without `operatorId`). */
export interface MasterData {
  vehicles: Vehicle[];
  trailers: Trailer[];
  traceTypes: TraceType[];
  /** Trace types whose new goods are return goods; every other trace type makes an extra good. */
  returnTraceTypeIds: ReadonlySet<string>;
  packaging: Packaging[];
  completionStatuses: CompletionStatus[];
  /** All activities; the listing shows the mobile-enabled ones only. */
  activities: Activity[];
  driverContacts: DriverContact[];
  chatContacts: ChatContact[];
  /** Every version of every questionnaire, oldest version first. */
  questionnaires: Questionnaire[];
  logos: Logo[];
  version: TmsVersion;
}

/** A dossier file with its bytes. */
export interface StoredFile {
  file: DossierFile;
  bytes: Buffer;
}

/** A mobile device as PUT /driver-api/devices/{hardwareCode} stores it. */
export interface Device {
  hardwareCode: string;
  operatorId: string;
  /** The request's body as sent (docs/api.md does not show its fields). */
  request: Readonly<Record<string, unknown>>;
  registeredAt: string;
  updatedAt: string;
}

/**
 * The whole mutable state of the Driver API part of the simulator. Invariant: a record, once in a map
 * or list here, is never mutated; a change puts a new object in its place. Truths and cached answers
 * can therefore hold records without copying them.
 */
export interface DriverData {
  readonly ids: DriverIds;
  /** Start of the UTC day the data was generated for: every generated time is relative to it. */
  readonly anchor: number;
  operators: Map<string, OperatorData>;
  master: MasterData;
  /** The clients tasks are for; shared by all operators. */
  clients: TaskClient[];
  /** Packaging balances per client id. */
  clientBalances: Map<string, ClientPackagingBalance>;
  /** Dossier files by order id, then by file name (the download subpath). */
  dossiers: Map<string, Map<string, StoredFile>>;
  /** Mobile devices by hardware code. */
  devices: Map<string, Device>;
  questionnaireAnswers: unknown[];
  processedMutations: Map<string, ProcessedMutation>;
}
