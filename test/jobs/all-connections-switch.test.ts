import { describe, expect, it } from 'vitest';
import { exitWithin, spawnCli } from './support/worker-process.js';

// TMS_ALL_CONNECTIONS is read as a yes or a no, never as "set": `false` must not turn it on.
describe('the all-connections switch', () => {
  const env = { TMS_BASE_URL: 'http://127.0.0.1:9', TMS_API_TOKEN: 'dev-api-token', LOG_LEVEL: 'info' };

  it('refuses a TMS_ALL_CONNECTIONS that is neither true nor false, naming it, exit 2', async () => {
    const worker = spawnCli(['worker'], { ...env, TMS_ALL_CONNECTIONS: 'maybe' });
    expect(await exitWithin(worker, 20_000)).toBe(2);
    expect(worker.lines.at(-1)).toMatch(
      /^tms-sync worker: invalid configuration: TMS_ALL_CONNECTIONS: "maybe"/,
    );
  });

  it('refuses --all-connections with --connection, exit 2', async () => {
    const worker = spawnCli(['worker', '--all-connections', '--connection', 'beta'], env);
    expect(await exitWithin(worker, 20_000)).toBe(2);
    expect(worker.lines.at(-1)).toMatch(
      /--all-connections: serves every connection: give it or --connection/,
    );
  });
});
