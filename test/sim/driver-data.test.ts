import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { driverTruth } from '../../src/sim/driver/driver-truth.js';
import { generateDriverData } from '../../src/sim/driver/generate-driver-data.js';
import { applyRandomChange } from '../../src/sim/driver/random-change.js';
import { createRng } from '../../src/sim/driver/rng.js';
import { type RecordName, recordSchemas } from '../../src/sim/records/index.js';

const now = Date.parse('2025-03-12T09:30:00Z');
const generate = (seed: number, idStyle: 'plain' | 'unsafe' = 'plain') =>
  generateDriverData({ seed, operators: 3, rideDays: 7, idStyle }, now);

const keyOf = (record: unknown, path: string) =>
  String(path.split('.').reduce((value: unknown, part) => (value as Record<string, unknown>)[part], record));

/** The simulator's own shape and key of each Driver API stream's records. */
const shapes: Record<string, readonly [RecordName, string]> = {
  tasks: ['task', 'id'],
  rides: ['ride', 'id'],
  planning: ['planning', 'operatorId'],
  goods: ['good', 'id'],
  task_packaging_balances: ['taskPackagingBalance', 'taskId'],
  client_packaging_balances: ['clientPackagingBalance', 'clientId'],
  chat_messages: ['chatMessage', 'id'],
  settings: ['mobileSettings', 'operatorId'],
  color_profiles: ['colorProfile', 'name'],
  vehicles: ['vehicle', 'id'],
  trailers: ['trailer', 'id'],
  trace_types: ['traceType', 'id'],
  packaging: ['packaging', 'id'],
  completion_statuses: ['completionStatus', 'id'],
  activities: ['activity', 'id'],
  driver_contacts: ['driverContact', 'id'],
  chat_contacts: ['chatContact', 'id'],
  questionnaires: ['questionnaire', 'id'],
  tms_version: ['tmsVersion', 'version'],
  dossier_folders: ['dossierFolder', 'orderId'],
};

describe('driver data generator', () => {
  it('gives the same truth for the same seed and another for another seed', () => {
    expect(driverTruth(generate(7))).toEqual(driverTruth(generate(7)));
    expect(driverTruth(generate(8)).tasks).not.toEqual(driverTruth(generate(7)).tasks);
  });

  it('keeps the same data through the day: only the UTC day of the clock matters', () => {
    const later = generateDriverData(
      { seed: 7, operators: 3, rideDays: 7, idStyle: 'plain' },
      now + 10 * 3_600_000,
    );
    expect(driverTruth(later)).toEqual(driverTruth(generate(7)));
  });

  for (const idStyle of ['plain', 'unsafe'] as const) {
    it(`fills every Driver API stream with records valid against its schema, unique per key (${idStyle} ids)`, () => {
      const truth = driverTruth(generate(3, idStyle));
      for (const [stream, scopes] of Object.entries(truth)) {
        const [record, key] = shapes[stream]!;
        const schema = recordSchemas[record];
        for (const scope of Object.values(scopes)) {
          expect(scope.records.length, stream).toBeGreaterThan(0);
          for (const record of scope.records)
            expect(Value.Errors(schema, record).First(), stream).toBeUndefined();
          const keys = scope.records.map((item) => keyOf(item, key));
          expect(new Set(keys).size, stream).toBe(keys.length);
          expect(scope.deletedIds).toEqual([]);
        }
      }
    });
  }

  it('scopes per-operator streams by the operator ids 1001, 1002, ... and master data by ""', () => {
    const truth = driverTruth(generate(1));
    expect(Object.keys(truth.tasks!)).toEqual(['1001', '1002', '1003']);
    expect(Object.keys(truth.vehicles!)).toEqual(['']);
  });

  it('generates 40 to 200 tasks per operator in every status, every good and ride a task refers to', () => {
    const data = generate(5);
    for (const operator of data.operators.values()) {
      const tasks = [...operator.tasks.values()];
      expect(tasks.length).toBeGreaterThanOrEqual(40);
      expect(tasks.length).toBeLessThanOrEqual(200);
      expect(new Set(tasks.map((task) => task.status))).toEqual(
        new Set(['notStarted', 'started', 'completed', 'cancelled']),
      );
      for (const task of tasks) {
        for (const good of task.goods) expect(operator.goods.get(good.id)?.taskId).toBe(task.id);
        if (task.rideId !== null) expect(operator.rides.get(task.rideId)?.taskIds).toContain(task.id);
        expect(data.dossiers.has(task.order.id)).toBe(true);
        expect(data.clientBalances.has(task.client.id)).toBe(true);
      }
    }
  });

  it('keeps the most recent ride days when told fewer: with one, the rides of today and the unassigned tasks', () => {
    const light = generateDriverData({ seed: 5, operators: 3, rideDays: 1, idStyle: 'plain' }, now);
    for (const operator of light.operators.values()) {
      const tasks = [...operator.tasks.values()];
      expect(tasks.length).toBeGreaterThanOrEqual(9);
      expect(tasks.length).toBeLessThanOrEqual(40);
      const today = new Date(now).toISOString().slice(0, 10);
      for (const ride of operator.rides.values()) expect(ride.planned.start?.slice(0, 10)).toBe(today);
    }
  });

  it('gives unsafe ids every character that needs percent-encoding, and no commas', () => {
    const task = [...generate(1, 'unsafe').operators.get('1001')!.tasks.values()][0]!;
    expect(task.id).toMatch(/[/ #?%]/);
    expect(task.id).not.toContain(',');
  });
});

describe('random driver changes', () => {
  it('change the truth and follow the random source deterministically', () => {
    const run = () => {
      const data = generate(2);
      const rng = createRng(99);
      const changes = Array.from({ length: 40 }, (_, i) => applyRandomChange(data, rng, now + i * 60_000));
      return { changes, truth: driverTruth(data) };
    };
    const first = run();
    expect(first.truth).not.toEqual(driverTruth(generate(2)));
    expect(run()).toEqual(first);
    expect(new Set(first.changes.map((change) => change.kind)).size).toBeGreaterThan(5);
  });

  it('remove a task together with its goods, which vanish from the truth without soft delete', () => {
    const data = generate(4);
    const rng = createRng(1);
    for (let i = 0; i < 300; i++) {
      const change = applyRandomChange(data, rng, now);
      if (change.kind !== 'task_removed') continue;
      const truth = driverTruth(data);
      const scope = truth.tasks![change.operatorId!]!;
      expect(scope.records.some((task) => (task as { id: string }).id === change.id)).toBe(false);
      expect(scope.deletedIds).toEqual([]);
      const goods = truth.goods![change.operatorId!]!.records as { taskId: string }[];
      expect(goods.some((good) => good.taskId === change.id)).toBe(false);
      return;
    }
    throw new Error('no task was removed in 300 changes');
  });
});
