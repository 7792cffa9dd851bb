import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../reliability/support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tms-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The rows printed under the example query that contains `marker`. */
function answerTo(stdout: string, marker: string): string[] {
  const block = stdout.split('\n\n').find((part) => part.includes(marker));
  expect(block, marker).toBeDefined();
  return block!.split('\n').slice(2);
}

it('demo answers its example questions: open amounts per currency, payments of the last month', async () => {
  const result = await runCli(['demo'], {}, 120_000, { cwd: dir });
  expect(result.code).toBe(0);
  const open = answerTo(result.stdout, 'AS open_amount FROM invoices_live WHERE');
  expect(open.map((row) => row.trim().split(/\s+/)[0]).sort()).toEqual(['EUR', 'GBP', 'USD']);
  const payments = answerTo(result.stdout, "date('now', '-1 month')");
  expect(payments.length).toBeGreaterThan(0);
  expect(payments.join('\n')).not.toContain('(no rows)');
}, 150_000);
