import { describe, expect, it } from 'vitest';
import { defaultSettings, type Settings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import { formatSkipped, selectPartitions } from '../../src/sync/select-partitions.js';
import { partitionLabel } from '../../src/sync/stream-order.js';
import { UnknownStreamError } from '../../src/sync/sync-errors.js';

const settings = (overrides: Partial<Settings> = {}): Settings => ({ ...defaultSettings, ...overrides });
const labels = (targets: readonly string[], given: Settings) =>
  selectPartitions(targets, given).partitions.map(partitionLabel);

describe('selectPartitions', () => {
  it('takes partition names as shown everywhere, beside stream names', () => {
    const withOperators = settings({ operators: ['1001', '1002'] });
    expect(labels(['goods/1002', 'tasks/1002', 'invoices/deleted'], withOperators)).toEqual([
      'invoices/deleted',
      'tasks/1002',
      'goods/1002',
    ]);
    expect(labels(['tasks', 'tasks/1001'], withOperators)).toEqual(['tasks/1001', 'tasks/1002']);
    expect(() => labels(['tasks/9999'], withOperators)).toThrow(
      new UnknownStreamError(['tasks/9999'], ['tasks/1001', 'tasks/1002'], 'partition'),
    );
    expect(() => labels(['nope/1'], withOperators)).toThrow(UnknownStreamError);
  });

  it('runs the configured streams when none are named: streams.include less streams.exclude', () => {
    const chosen = settings({
      operators: ['7'],
      streams: {
        include: ['invoices', 'invoice_lines', 'chat_messages', 'tasks'],
        exclude: ['chat_messages'],
        history: [],
      },
    });
    expect(labels([], chosen)).toEqual(['invoices', 'invoices/deleted', 'invoice_lines', 'tasks/7']);
    // A stream named explicitly runs whatever the selection says.
    expect(labels(['chat_messages'], chosen)).toEqual(['chat_messages/7']);
  });

  it('skips the per-operator streams without TMS_OPERATORS, with one line, but refuses one named explicitly', () => {
    const { partitions, skipped } = selectPartitions([], settings());
    expect(partitions.map(partitionLabel)).toContain('addressbook');
    expect(partitions.map((p) => p.stream)).not.toContain('tasks');
    expect(skipped.map((s) => s.stream)).toEqual([
      'tasks',
      'rides',
      'planning',
      'goods',
      'task_packaging_balances',
      'client_packaging_balances',
      'chat_messages',
      'settings',
      'color_profiles',
      'dossier_folders',
    ]);
    const lines = formatSkipped(skipped);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^skipped 10 streams \(tasks, rides, .*\): no operators configured: set TMS_OPERATORS/,
    );
    const error = (() => {
      try {
        selectPartitions(['tasks'], settings());
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).setting).toBe('TMS_OPERATORS');
  });
});
