import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Int32, Location, Nullable, TimeSpan } from './record-parts.js';

const GeoPoint = Type.Object({ latitude: Type.Number(), longitude: Type.Number(), number: Type.Number() });

export const TaskType = Type.Object({
  name: Type.String(),
  code: Type.String(),
  isStart: Type.Boolean(),
  isEnd: Type.Boolean(),
  activityId: Int32,
  id: Type.String(),
});
export type TaskType = Static<typeof TaskType>;

export const TaskClient = Type.Object({
  name: Type.String(),
  phone: Type.String(),
  categories: Type.Array(Type.String()),
  id: Type.String(),
});
export type TaskClient = Static<typeof TaskClient>;

export const TaskAddress = Type.Object({
  name: Type.String(),
  contact: Type.String(),
  street: Type.String(),
  houseNumber: Type.String(),
  postalCode: Type.String(),
  premise: Type.String(),
  city: Type.String(),
  country: Type.Object({ name: Type.String(), code: Type.String() }),
  phone: Type.String(),
  mobile: Type.String(),
  annotation: Type.String(),
  location: GeoPoint,
});
export type TaskAddress = Static<typeof TaskAddress>;

export const PackagingTransaction = Type.Object({
  packagingId: Type.String(),
  collected: Int32,
  delivered: Int32,
  id: Type.String(),
});

export const TaskCompletion = Type.Object({
  when: TimeSpan,
  completionStatusId: Nullable(Int32),
  contactName: Type.String(),
  comments: Type.String(),
  signature: Type.String(),
  packagingTransactions: Type.Array(PackagingTransaction),
  location: Location,
});
export type TaskCompletion = Static<typeof TaskCompletion>;

export const TaskStatus = Type.Union([
  Type.Literal('notStarted'),
  Type.Literal('started'),
  Type.Literal('completed'),
  Type.Literal('cancelled'),
]);

export const FlowAction = Type.Union([
  Type.Literal('enterContactName'),
  Type.Literal('askForSignature'),
  Type.Literal('scanGoods'),
  Type.Literal('takePicture'),
  Type.Literal('registerPackagingTransactions'),
  Type.Literal('handleCashOnDelivery'),
]);

export const TaskSettings = Type.Object({
  canEditReference: Type.Boolean(),
  hideAfterMinutes: Int32,
  showPackagingBalancePerAddress: Type.Boolean(),
  showPackagingBalancePerClient: Type.Boolean(),
  canEditPackagingTransactions: Type.Boolean(),
  taskListTemplate: Type.String(),
  contactNameMandatory: Type.Boolean(),
  signatureMandatory: Type.Boolean(),
  pictureMandatory: Type.Boolean(),
  chooseCompletionStatusMandatory: Type.Boolean(),
  scanAllGoodsMandatory: Type.Boolean(),
  scanAllGoodsNonComplianceAction: Type.Union([
    Type.Literal('continue'),
    Type.Literal('warn'),
    Type.Literal('block'),
  ]),
  autoCompleteTaskWhenAllIsScanned: Type.Boolean(),
  flow: Type.Array(Type.Object({ action: FlowAction, isMandatory: Type.Boolean() })),
  logoId: Nullable(Int32),
  finalDeliveryDate: Nullable(DateTime),
});
export type TaskSettings = Static<typeof TaskSettings>;

export const GoodSettings = Type.Object({
  canEditAmount: Type.Boolean(),
  canEditPackaging: Type.Boolean(),
  defaultTraceTypeId: Nullable(Int32),
  alternativeTraceTypeIds: Type.Object({ capacity: Int32, count: Int32 }),
});

/**
 * Task record, docs/api.md, Records, in full. `id` is chosen here: docs/api.md lists no task key, yet
 * filters (`ids`) and PATCH /driver-api/tasks/{id} need one.
 */
export const Task = Type.Object({
  id: Type.String(),
  index: Int32,
  rideId: Nullable(Int32),
  trailerId: Nullable(Int32),
  requested: TimeSpan,
  planned: TimeSpan,
  type: TaskType,
  cashOnDelivery: Type.Number(),
  client: TaskClient,
  address: TaskAddress,
  siteLocation: GeoPoint,
  completion: TaskCompletion,
  status: TaskStatus,
  instructions: Type.String(),
  information: Type.String(),
  referenceInternal: Type.String(),
  referenceExternal: Type.String(),
  goods: Type.Array(Type.Object({ id: Type.String() })),
  order: Type.Object({
    product: Type.Object({ name: Type.String(), id: Type.String() }),
    categories: Type.String(),
    id: Type.String(),
  }),
  taskSettings: TaskSettings,
  goodSettings: GoodSettings,
});
export type Task = Static<typeof Task>;
