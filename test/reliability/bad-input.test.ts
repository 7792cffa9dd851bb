import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { runCli } from './support/run-cli.js';

interface BadInput {
  readonly name: string;
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** What the one line on stderr must name. */
  readonly names: RegExp;
}

const configs = mkdtempSync(join(tmpdir(), 'tms-bad-config-'));
/** A TMS_SYNC_CONFIG file holding `content`. */
function configFile(name: string, content: unknown): string {
  const path = join(configs, `${name}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

const badInputs: readonly BadInput[] = [
  {
    name: 'a TMS_BASE_URL that is not a URL',
    env: { TMS_BASE_URL: 'nope' },
    names: /TMS_BASE_URL: not a URL: "nope"/,
  },
  { name: 'an OPS_PORT that is not a number', env: { OPS_PORT: 'abc' }, names: /OPS_PORT: .*got "abc"/ },
  {
    name: 'a STORE_URL of an unsupported database',
    env: { STORE_URL: 'mysql://x' },
    names: /STORE_URL: expected sqlite:PATH/,
  },
  {
    name: 'a STORE_URL that cannot be opened',
    env: { STORE_URL: 'sqlite:/dev/null/x/store.sqlite' },
    names: /cannot open the store at STORE_URL=sqlite:\/dev\/null\/x\/store\.sqlite/,
  },
  {
    name: 'a STORE_URL whose directory cannot be made (under /proc)',
    env: { STORE_URL: 'sqlite:/proc/no/such/store.sqlite' },
    names: /cannot open the store at STORE_URL=sqlite:\/proc\/no\/such\/store\.sqlite/,
  },
  {
    name: 'an unknown LOG_LEVEL',
    env: { LOG_LEVEL: 'loud' },
    names: /LOG_LEVEL: expected one of .*got "loud"/,
  },
  {
    name: 'a config file that does not exist',
    env: { TMS_SYNC_CONFIG: '/nonexistent/tms.json' },
    names: /TMS_SYNC_CONFIG: cannot read/,
  },
  { name: 'an unknown stream name', args: ['sync', 'nope'], names: /unknown stream nope; known: invoices/ },
  { name: 'an unknown stream to reset', args: ['reset', 'nope'], names: /unknown stream nope/ },
  { name: 'an unknown flag', args: ['sync', '--bogus'], names: /unknown option '--bogus'/ },
  { name: 'a value given to a boolean flag', args: ['sync', '--full=3'], names: /unknown option '--full=3'/ },
  { name: 'an unknown command', args: ['frobnicate'], names: /unknown command 'frobnicate'/ },
  {
    name: 'credentials in TMS_BASE_URL',
    env: { TMS_BASE_URL: 'http://user:Secret-in-url@127.0.0.1:9' },
    names:
      /^(?!.*Secret-in-url).*TMS_BASE_URL: carries credentials \("http:\/\/user:\*\*\*@127\.0\.0\.1:9"\)/,
  },
  { name: 'a REDIS_URL with a space', env: { REDIS_URL: 'redis:// x' }, names: /REDIS_URL: not a URL/ },
  {
    name: 'a REDIS_URL of another scheme',
    env: { REDIS_URL: 'http://127.0.0.1:6379' },
    names: /REDIS_URL: expected redis:\/\/.*got the scheme "http:"/,
  },
  {
    name: 'a cron pattern that is not one',
    env: { TMS_SYNC_CONFIG: configFile('bad-cron', { schedule: { cron: '99 * * * *' } }) },
    names: /schedule\.cron: "99 \* \* \* \*" is not a cron pattern: .*0-59/,
  },
  {
    name: 'a bad cron pattern of one stream',
    env: {
      TMS_SYNC_CONFIG: configFile('bad-stream-cron', { streamSchedules: { invoices: { cron: 'nightly' } } }),
    },
    names: /streamSchedules\.invoices\.cron: "nightly" is not a cron pattern/,
  },
  {
    name: 'an OPS_HOST that is no host',
    env: { OPS_HOST: 'not a host!' },
    names: /OPS_HOST: expected an IP address/,
  },
  { name: 'an OPS_PORT in hexadecimal', env: { OPS_PORT: '0x50' }, names: /OPS_PORT: .*got "0x50"/ },
  { name: 'an OPS_PORT in exponent form', env: { OPS_PORT: '1e3' }, names: /OPS_PORT: .*got "1e3"/ },
  {
    name: 'a WORKER_CONCURRENCY in hexadecimal',
    env: { WORKER_CONCURRENCY: '0x10' },
    names: /WORKER_CONCURRENCY: .*got "0x10"/,
  },
  {
    name: 'a page limit of 10^15',
    env: { TMS_SYNC_CONFIG: configFile('page-limit', { sync: { pageLimit: 1e15 } }) },
    names: /page-limit\.json\/sync\/pageLimit: .*10000/,
  },
  {
    name: 'a blank OPS_DASHBOARD_TOKEN',
    env: { OPS_DASHBOARD_TOKEN: '' },
    names: /OPS_DASHBOARD_TOKEN: is set but blank/,
  },
  {
    name: 'a blank TMS_WEBHOOK_SECRET',
    env: { TMS_WEBHOOK_SECRET: '  ' },
    names: /TMS_WEBHOOK_SECRET: is set but blank/,
  },
  {
    name: 'a malformed sim port',
    args: ['sim', '--port', 'abc'],
    names: /--port must be a non-negative integer/,
  },
];

/** Every file of the directory with a hash of its bytes: "nothing changed" made checkable. */
function fingerprint(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir).map((name) => [
      name,
      createHash('sha256')
        .update(readFileSync(join(dir, name)))
        .digest('hex'),
    ]),
  );
}

describe('bad local input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tms-bad-input-'));
  const storeUrl = `sqlite:${join(dir, 'store.sqlite')}`;
  let before: Record<string, string>;

  beforeAll(async () => {
    await (await openStore(storeUrl)).close();
    before = fingerprint(dir);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(configs, { recursive: true, force: true });
  });

  it.concurrent.each(badInputs)(
    'stops on $name with one line naming it, exit code 2 and the store untouched',
    async ({ args = ['sync'], env = {}, names }) => {
      const result = await runCli(args, {
        TMS_BASE_URL: 'http://127.0.0.1:9',
        TMS_API_TOKEN: 'unused',
        STORE_URL: storeUrl,
        ...env,
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(names);
      expect(fingerprint(dir)).toEqual(before);
    },
  );
});
