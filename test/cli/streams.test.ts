import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { streams } from '../../config/streams.js';
import { runCli } from '../reliability/support/run-cli.js';

// `tms-sync streams`, the catalogue as this configuration runs it.

const dir = mkdtempSync(join(tmpdir(), 'tms-streams-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tms-sync streams', () => {
  it('lists every stream with what it reads, its partitions here, whether it is selected and history is on', async () => {
    const config = join(dir, 'config.jsonc');
    writeFileSync(
      config,
      '{ "streams": { "include": "invoices,invoice_lines,tasks,goods", "history": ["invoices"] } }',
    );
    const env = { TMS_SYNC_CONFIG: config, TMS_OPERATORS: '1001,1002' };
    const text = await runCli(['streams'], env);
    expect(text.code).toBe(0);
    const line = (stream: string) =>
      text.stdout.split('\n').find((item) => item.startsWith(`${stream} `)) ?? '';
    expect(line('invoices')).toMatch(
      /^invoices\s+sequence\s+\(default\), deleted\s+yes\s+on\s+GET \/invoice\/invoices\/$/,
    );
    expect(line('invoice_lines')).toMatch(/^invoice_lines\s+child\s+invoices\s+\(default\)\s+yes\s+GET/);
    expect(line('goods')).toMatch(/^goods\s+snapshot\s+tasks\s+1001, 1002\s+yes\s+GET/);
    expect(line('clients')).toMatch(/^clients\s+sequence\s+\(default\), deleted\s+no\s+GET/);
    expect(text.stdout).toContain(`4 of ${Object.keys(streams).length} streams selected`);

    const json = JSON.parse((await runCli(['streams', '--json'], { TMS_SYNC_CONFIG: config })).stdout);
    expect(json.map((item: { stream: string }) => item.stream)).toEqual(Object.keys(streams));
    expect(json.find((item: { stream: string }) => item.stream === 'tasks')).toMatchObject({
      partitions: null,
      missing: 'TMS_OPERATORS',
      selected: true,
      history: false,
    });
  });
});
