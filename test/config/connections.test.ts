import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionQueueName } from '../../config/connections/connection-settings.js';
import { encryptToken, generateConnectionsKey } from '../../config/connections/token-cipher.js';
import { loadSettings } from '../../config/load-settings.js';
import { loadConnectionSettings } from '../../config/resolve-connection.js';
import { SettingsError } from '../../config/settings-error.js';
import { redactSecrets } from '../../src/secrets/secret-registry.js';

const dir = mkdtempSync(join(tmpdir(), 'tms-connections-'));
let files = 0;
function file(content: unknown): string {
  const path = join(dir, `file-${files++}`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function errorOf(run: () => unknown): SettingsError {
  try {
    run();
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('expected a SettingsError');
}

const base = { TMS_BASE_URL: 'https://tms.example.com', TMS_API_TOKEN: 'default-account-token' };
const withConnections = (connections: unknown, top: Record<string, unknown> = {}) => ({
  ...base,
  TMS_SYNC_CONFIG: file({ ...top, connections }),
});

describe('connections in the config file', () => {
  it('leaves the default connection as the environment and the file make it, queue and store unchanged', () => {
    const env = withConnections(
      { acme: { apiToken: 'env:ACME_TOKEN' } },
      { storeUrl: 'sqlite:/srv/tms.sqlite' },
    );
    const settings = loadConnectionSettings(undefined, env);
    expect(settings).toEqual(loadSettings(env));
    expect(settings.connection).toBe('default');
    expect(settings.apiToken).toBe('default-account-token');
    expect(settings.storeUrl).toBe('sqlite:/srv/tms.sqlite');
    expect(settings.worker.queueName).toBe('tms-sync');
  });

  it('gives a connection its own token, operators, file beside the default SQLite store and queue; inherits the rest', () => {
    const env = {
      ...withConnections(
        { acme: { apiToken: 'env:ACME_TOKEN', operators: '7,8', tms: { maxRequestsPerSecond: 5 } } },
        {
          storeUrl: 'sqlite:/srv/data/tms.sqlite',
          operators: ['1'],
          sync: { pageLimit: 200 },
          tms: { maxConcurrency: 3 },
        },
      ),
      ACME_TOKEN: 'acme-account-token',
    };
    const acme = loadConnectionSettings('acme', env);
    expect(acme).toMatchObject({
      connection: 'acme',
      baseUrl: 'https://tms.example.com',
      apiToken: 'acme-account-token',
      operators: ['7', '8'],
      storeUrl: 'sqlite:/srv/data/acme.sqlite',
      storeSchema: undefined,
    });
    expect(acme.sync.pageLimit).toBe(200);
    expect(acme.tms).toMatchObject({ maxConcurrency: 3, maxRequestsPerSecond: 5 });
    expect(acme.worker.queueName).toBe(connectionQueueName('tms-sync', 'acme'));
    expect(acme.worker.queuePrefix).toBe('tms');
  });

  it('puts a connection in the schema tms_<name> of the default PostgreSQL database, or the schema it names', () => {
    const env = {
      ...withConnections(
        { acme: { apiToken: 'env:T' }, globex: { apiToken: 'env:T', storeSchema: 'globex_mirror' } },
        { storeUrl: 'postgres://tms:pw@db.local:5432/warehouse?schema=main' },
      ),
      T: 'some-token',
    };
    expect(loadConnectionSettings('acme', env)).toMatchObject({
      storeUrl: 'postgres://tms:pw@db.local:5432/warehouse',
      storeSchema: 'tms_acme',
    });
    expect(loadConnectionSettings('globex', env).storeSchema).toBe('globex_mirror');
  });

  it('reads a token from a file and from an encrypted value with TMS_CONNECTIONS_KEY', () => {
    const key = generateConnectionsKey();
    const encrypted = encryptToken('globex-account-token', Buffer.from(key, 'base64'));
    const env = {
      ...withConnections({
        acme: { apiToken: `file:${file('acme-file-token\n')}` },
        globex: { apiToken: encrypted, driverToken: `file:${file('globex-driver-jwt')}` },
      }),
      TMS_CONNECTIONS_KEY: key,
    };
    expect(loadConnectionSettings('acme', env).apiToken).toBe('acme-file-token');
    const globex = loadConnectionSettings('globex', env);
    expect(globex.apiToken).toBe('globex-account-token');
    expect(globex.driverToken).toBe('globex-driver-jwt');
    expect(redactSecrets('token globex-account-token')).toBe('token [redacted]');
  });

  it('refuses a token in plain text, naming the connection and the setting, never the token', () => {
    const env = withConnections({
      acme: { apiToken: 'env:A' },
      globex: { driverToken: 'eyJ-plain-driver-token' },
    });
    const error = errorOf(() => loadSettings(env));
    expect(error.setting).toBe('connections.globex.driverToken');
    expect(error.message).toMatch(/never written in plain text.*env:NAME.*file:.*enc:v1:/);
    expect(error.message).not.toContain('eyJ-plain-driver-token');
  });

  it.each([
    [{ apiToken: 'env:NOT_SET' }, {}, 'connections.acme.apiToken', /NOT_SET it names is not set/],
    [
      { apiToken: 'file:/nonexistent/token' },
      {},
      'connections.acme.apiToken',
      /cannot read \/nonexistent\/token/,
    ],
    [{ apiToken: 'enc:v1:AAAA' }, {}, 'TMS_CONNECTIONS_KEY', /is not set/],
    [
      { apiToken: encryptToken('t', Buffer.alloc(32, 1)) },
      { TMS_CONNECTIONS_KEY: Buffer.alloc(32, 2).toString('hex') },
      'connections.acme.apiToken',
      /does not decrypt with TMS_CONNECTIONS_KEY/,
    ],
  ])('says why a token reference cannot be read: %j', (entry, extraEnv, setting, problem) => {
    const env = { ...withConnections({ acme: entry }), ...extraEnv };
    expect(() => loadSettings(env)).not.toThrow();
    const error = errorOf(() => loadConnectionSettings('acme', env));
    expect(error.setting).toBe(setting);
    expect(error.problem).toMatch(problem);
  });

  it.each([
    [{ acme: {} }, 'connections.acme.apiToken', /needs its own API token/],
    [{ Acme: { apiToken: 'env:T' } }, 'connections.Acme', /lower-case letters/],
    [{ default: { apiToken: 'env:T' } }, 'connections.default', /top level of the file/],
    [{ acme: { apiToken: 'env:T', baseUrl: 'ftp://x' } }, 'connections.acme.baseUrl', /http or https/],
    [
      { acme: { apiToken: 'env:T', tms: { maxRequestsPerSecond: -1 } } },
      'connections.acme.tms.maxRequestsPerSecond',
      /integer/,
    ],
    [
      { acme: { apiToken: 'env:T', streams: { include: ['nope'] } } },
      'connections.acme.streams.include',
      /no such stream/,
    ],
    [{ acme: { apiToken: 'env:T', storeSchema: 'x' } }, 'connections.acme.storeUrl', /PostgreSQL store only/],
    [{ tms: { apiToken: 'env:T' } }, 'connections.tms.storeUrl', /connection "default"'s too/],
  ])('checks every entry when the settings load: %j', (connections, setting, problem) => {
    const error = errorOf(() =>
      loadSettings(withConnections(connections, { storeUrl: 'sqlite:/srv/data/tms.sqlite' })),
    );
    expect(error.setting).toBe(setting);
    expect(error.problem).toMatch(problem);
  });

  it('refuses an unknown key in an entry with the key meant', () => {
    const env = withConnections({ acme: { apiToken: 'env:T', operatorz: ['1'] } });
    expect(errorOf(() => loadSettings(env)).message).toMatch(
      /unknown key "operatorz" in connections.acme; did you mean "operators"/,
    );
  });

  it('names the known connections, and the one meant, for an unknown --connection', () => {
    const env = withConnections({ acme: { apiToken: 'env:T' }, globex: { apiToken: 'env:T' } });
    const error = errorOf(() => loadConnectionSettings('acmee', env));
    expect(error.setting).toBe('--connection');
    expect(error.problem).toBe('no connection "acmee" (known: default, acme, globex); did you mean "acme"?');
  });

  it("takes the example file's commented connections as they are once uncommented", () => {
    const example = readFileSync(
      join(import.meta.dirname, '..', '..', 'config', 'tms-sync.example.jsonc'),
      'utf8',
    );
    const lines = example.split('\n');
    const start = lines.findIndex((line) => line.trim() === '// "connections": {');
    const end = lines.findIndex((line, index) => index > start && line === '  // }');
    const block = lines.slice(start, end + 1).map((line) => line.replace('// ', ''));
    const settings = loadSettings({ ...base, TMS_SYNC_CONFIG: file(`{\n${block.join('\n')}\n}`) });
    expect(Object.keys(settings.connections)).toEqual(['acme', 'globex']);
    expect(settings.connections.globex!.paused).toBe(true);
  });
});
