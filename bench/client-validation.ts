// Cost of the client's record validation (compiled TypeBox, record-validation.ts) per 1000 records.
// Run: npx tsx bench/client-validation.ts
import { Invoice, Task } from '../schemas/index.js';
import { splitRecords } from '../src/client/record-validation.js';

const span = { start: '2024-05-01T08:00:00Z', end: '2024-05-01T09:00:00Z' };
const point = { latitude: 52.1, longitude: 5.2, number: 1 };

const invoice = (i: number) => ({
  id: String(100000 + i),
  number: `INV-${i}`,
  status: 'preliminary',
  clientId: String(i % 200),
  currency: 'EUR',
  issueDate: '2024-05-01',
  dueDate: null,
  reference: `ref-${i}`,
  notes: 'n',
  totals: { net: i, vat: i * 0.21, gross: i * 1.21 },
  paidAmount: 0,
  modifiedAt: '2024-05-01T08:00:00Z',
  sequence: 1000 + i,
});

const task = (i: number) => ({
  id: `t${i}`,
  index: i,
  rideId: i,
  trailerId: null,
  requested: span,
  planned: span,
  type: { name: 'Deliver', code: 'DEL', isStart: false, isEnd: false, activityId: 3, id: 'ty1' },
  cashOnDelivery: 0,
  client: { name: 'ACME', phone: '+31', categories: ['a'], id: 'c1' },
  address: {
    name: 'Depot',
    contact: 'Ann',
    street: 'Main',
    houseNumber: '1',
    postalCode: '1234AB',
    premise: '',
    city: 'Utrecht',
    country: { name: 'Netherlands', code: 'NL' },
    phone: '',
    mobile: '',
    annotation: '',
    location: point,
  },
  siteLocation: point,
  completion: {
    when: { start: null, end: null },
    completionStatusId: null,
    contactName: '',
    comments: '',
    signature: '',
    packagingTransactions: [{ packagingId: 'p1', collected: 1, delivered: 2, id: 'pt1' }],
    location: { latitude: 0, longitude: 0 },
  },
  status: 'notStarted',
  instructions: '',
  information: '',
  referenceInternal: `r${i}`,
  referenceExternal: '',
  goods: [{ id: `g${i}` }],
  order: { product: { name: 'Pallets', id: 'pr1' }, categories: '', id: `o${i}` },
  taskSettings: {
    canEditReference: true,
    hideAfterMinutes: 30,
    showPackagingBalancePerAddress: false,
    showPackagingBalancePerClient: false,
    canEditPackagingTransactions: true,
    taskListTemplate: 'default',
    contactNameMandatory: false,
    signatureMandatory: false,
    pictureMandatory: false,
    chooseCompletionStatusMandatory: false,
    scanAllGoodsMandatory: false,
    scanAllGoodsNonComplianceAction: 'warn',
    autoCompleteTaskWhenAllIsScanned: false,
    flow: [{ action: 'scanGoods', isMandatory: true }],
    logoId: null,
    finalDeliveryDate: null,
  },
  goodSettings: {
    canEditAmount: true,
    canEditPackaging: true,
    defaultTraceTypeId: null,
    alternativeTraceTypeIds: { capacity: 1, count: 1 },
  },
});

function measure(
  name: string,
  schema: typeof Invoice | typeof Task,
  records: unknown[],
  expectRejected = 0,
): void {
  const rounds = 300;
  const check = splitRecords(schema, records);
  if (check.rejected.length !== expectRejected) throw new Error(`${name}: ${check.rejected.length} rejected`);
  for (let i = 0; i < 50; i++) splitRecords(schema, records);
  const started = performance.now();
  for (let i = 0; i < rounds; i++) splitRecords(schema, records);
  const perThousand = (performance.now() - started) / rounds / (records.length / 1000);
  console.log(`${name.padEnd(22)} ${perThousand.toFixed(3)} ms per 1000 records`);
}

const invoices = Array.from({ length: 1000 }, (_, i) => invoice(i));
const tasks = Array.from({ length: 1000 }, (_, i) => task(i));
measure('invoice (13 fields)', Invoice, invoices);
measure('task (~90 fields)', Task, tasks);
measure(
  'invoice, 1 in 10 bad',
  Invoice,
  invoices.map((r, i) => (i % 10 === 0 ? { ...r, totals: { net: 'x' } } : r)),
  100,
);
