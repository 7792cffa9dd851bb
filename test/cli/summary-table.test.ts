import { describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/summary-table.js';
import { emptyTally, type PartitionSummary } from '../../src/sync/run-options.js';

const summary = (stream: string, partition: string, overrides: Partial<PartitionSummary> = {}) =>
  ({
    ...emptyTally(),
    stream,
    partition,
    result: 'succeeded',
    error: null,
    runId: 1,
    durationMs: 100,
    dryRun: false,
    records: 2,
    ...overrides,
  }) as PartitionSummary;

describe('the summary of a run', () => {
  it('shows a row per partition for streams with few, one row for a stream with many, and one line per failure reason', () => {
    const operators = Array.from({ length: 500 }, (_, i) => String(1001 + i));
    const refused = 'HttpStatusError: GET /driver-api/tasks/ answered 403';
    const text = formatSummary([
      summary('invoices', '', { watermark: 42 }),
      summary('invoices', 'deleted'),
      ...operators.map((operator, i) =>
        summary('tasks', operator, i < 5 ? { result: 'failed', error: refused, durationMs: 900 } : {}),
      ),
    ]);
    expect(text).toMatch(/^invoices +succeeded .* 42 +0\.1$/m);
    expect(text).toMatch(/^invoices\/deleted +succeeded /m);
    expect(text).toMatch(/^tasks \(500 partitions\) +495 succeeded, 5 failed +0 +1,000 .* 0\.9$/m);
    expect(text).not.toMatch(/^tasks\/1001 /m);
    expect(text).toContain(`tasks/1001, tasks/1002, tasks/1003 and 2 more: ${refused}`);
    expect(text).toContain('502 partitions of 2 streams: 497 succeeded, 5 failed');
  });
});
