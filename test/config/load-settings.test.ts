// Over 300 lines on purpose: every setting's variable, file key, default and refusal, in one
// place, so a setting added without its tests shows here.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cronParser from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../config/load-settings.js';
import { schedulePatternsTakenAsKnown } from '../../config/schedule-settings.js';
import { defaultSettings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import { streams } from '../../config/streams.js';

function configFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tms-settings-')), 'config.json');
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

describe('loadSettings', () => {
  it('uses the documented defaults when nothing is set', () => {
    const settings = loadSettings({});
    expect(settings.storeUrl).toBe('sqlite:./data/tms.sqlite');
    expect(settings.loginPath).toBe('/auth/login-api-token');
    expect(settings.opsHost).toBe('127.0.0.1');
    expect(settings.opsPort).toBe(9464);
    expect(settings.operators).toEqual([]);
    expect(settings.sync.pageLimit).toBe(1000);
  });

  it('reads the environment, splitting TMS_OPERATORS on commas', () => {
    const settings = loadSettings({
      TMS_BASE_URL: 'http://tms.local:8080',
      TMS_OPERATORS: ' 1001, 1002,,',
      OPS_PORT: '0',
    });
    expect(settings.baseUrl).toBe('http://tms.local:8080');
    expect(settings.operators).toEqual(['1001', '1002']);
    expect(settings.opsPort).toBe(0);
  });

  it('lets the environment win over the config file', () => {
    const file = configFile({ storeUrl: 'sqlite:/tmp/a.sqlite', sync: { pageLimit: 50 }, operators: ['7'] });
    const settings = loadSettings({ TMS_SYNC_CONFIG: file, STORE_URL: 'postgres://127.0.0.1/x' });
    expect(settings.storeUrl).toBe('postgres://127.0.0.1/x');
    expect(settings.sync.pageLimit).toBe(50);
    expect(settings.sync.maxDeleteShare).toBe(0.5);
    expect(settings.operators).toEqual(['7']);
  });

  it.each([
    [{ TMS_BASE_URL: 'not a url' }, 'TMS_BASE_URL'],
    [{ TMS_BASE_URL: 'ftp://x' }, 'TMS_BASE_URL'],
    [{ STORE_URL: 'mysql://x' }, 'STORE_URL'],
    [{ OPS_PORT: '70000' }, 'OPS_PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ REDIS_URL: '127.0.0.1:6379' }, 'REDIS_URL'],
    [{ TMS_LOGIN_PATH: 'auth' }, 'TMS_LOGIN_PATH'],
    [{ QUEUE_NAME: 'a:b' }, 'QUEUE_NAME'],
    [{ WORKER_CONCURRENCY: '0' }, 'WORKER_CONCURRENCY'],
    [{ WORKER_CONNECTION_CONCURRENCY: '0' }, 'WORKER_CONNECTION_CONCURRENCY'],
    [{ WORKER_CONNECTION_OWNERS: '0' }, 'WORKER_CONNECTION_OWNERS'],
    [{ JOB_ATTEMPTS: 'five' }, 'JOB_ATTEMPTS'],
    [{ JOB_BACKOFF_MS: '-1' }, 'JOB_BACKOFF_MS'],
    [{ WORKER_LOCK_MS: '10' }, 'WORKER_LOCK_MS'],
    [{ WORKER_MAX_STALLS: '0' }, 'WORKER_MAX_STALLS'],
    [{ RATE_LIMIT_PAUSE_MS: '1.5' }, 'RATE_LIMIT_PAUSE_MS'],
    [{ SHUTDOWN_TIMEOUT_MS: '0' }, 'SHUTDOWN_TIMEOUT_MS'],
  ])('names the setting that is wrong: %j', (env, setting) => {
    expect(errorOf(() => loadSettings(env)).setting).toBe(setting);
  });

  it('names the config file path of a wrong value', () => {
    const file = configFile({ sync: { pageLimit: 0 } });
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: file })).setting).toBe(`${file}/sync/pageLimit`);
  });

  it('rejects an unknown stream in the schedules and a schedule with both forms', () => {
    const unknown = configFile({ streamSchedules: { nope: { everySeconds: 5 } } });
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: unknown })).setting).toBe(
      `${unknown}/streamSchedules/nope`,
    );
    const both = configFile({ schedule: { everySeconds: 5, cron: '* * * * *' } });
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: both })).setting).toBe('schedule');
  });

  it('parses a cron pattern it does not know, and knows only patterns that parse', () => {
    const bad = configFile({ schedule: { cron: '61 * * * *' } });
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: bad })).setting).toBe('schedule.cron');
    const good = configFile({ schedule: { cron: '*/15 * * * *' } });
    expect(loadSettings({ TMS_SYNC_CONFIG: good }).schedule).toEqual({ cron: '*/15 * * * *' });
    expect(schedulePatternsTakenAsKnown.size).toBeGreaterThan(0);
    for (const pattern of schedulePatternsTakenAsKnown) {
      expect(() => cronParser.parseExpression(pattern).next()).not.toThrow();
    }
  });

  it('reports an unreadable or invalid JSON config file as TMS_SYNC_CONFIG', () => {
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: '/nonexistent/x.json' })).setting).toBe(
      'TMS_SYNC_CONFIG',
    );
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: configFile('{oops') })).setting).toBe(
      'TMS_SYNC_CONFIG',
    );
  });

  it('reads the commented example file as the defaults it documents', () => {
    const example = join(import.meta.dirname, '..', '..', 'config', 'tms-sync.example.jsonc');
    const fromFile = loadSettings({ TMS_SYNC_CONFIG: example });
    const { baseUrl: _baseUrl, ...rest } = fromFile;
    const { baseUrl: _none, ...defaults } = loadSettings({});
    expect(rest).toEqual(defaults);
    expect(fromFile.baseUrl).toBe('http://127.0.0.1:4010');
  });

  it('takes JSON with comments and trailing commas, and names the line of a syntax error', () => {
    const file = configFile(
      '{\n  // the pages\n  "sync": { "pageLimit": 50, },\n  /* and */ "opsPort": 1,\n}',
    );
    expect(loadSettings({ TMS_SYNC_CONFIG: file }).sync.pageLimit).toBe(50);
    const broken = configFile('{\n  "sync": { "pageLimit": 50 }\n  "opsPort": 1\n}');
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: broken })).message).toMatch(
      /is not JSON \(CommaExpected at line 3, column 3\)/,
    );
  });

  it('says the file is camelCase and names the key meant for an environment-style key', () => {
    const cases = [
      [{ TMS_BASE_URL: 'http://x' }, '/TMS_BASE_URL', 'the file sets TMS_BASE_URL as "baseUrl"'],
      [
        { WORKER_CONCURRENCY: 2 },
        '/WORKER_CONCURRENCY',
        'the file sets WORKER_CONCURRENCY as "worker.concurrency"',
      ],
      [{ TMS_MAX_RPS: 2 }, '/TMS_MAX_RPS', 'as "tms.maxRequestsPerSecond"'],
      [{ sync_page_limit: 5 }, '/sync_page_limit', 'did you mean "sync.pageLimit"?'],
      [{ sync: { page_limit: 5 } }, '/sync/page_limit', "in sync; the file's keys are camelCase"],
      [{ sync: { page_limit: 5 } }, '/sync/page_limit', 'did you mean "pageLimit"?'],
      [{ store_url: 'sqlite:x' }, '/store_url', 'did you mean "storeUrl"?'],
    ] as const;
    for (const [content, pointer, hint] of cases) {
      const file = configFile(content);
      const error = errorOf(() => loadSettings({ TMS_SYNC_CONFIG: file }));
      expect(error.setting).toBe(`${file}${pointer}`);
      expect(error.message).toContain("the file's keys are camelCase");
      expect(error.message).toContain(hint);
    }
  });

  it('names an unknown key at any depth, its group and the key meant', () => {
    const cases = [
      [
        { streams: { inclde: ['invoices'] } },
        '/streams/inclde',
        'unknown key "inclde" in streams; did you mean "include"?',
      ],
      [
        { streams: { histroy: true } },
        '/streams/histroy',
        'unknown key "histroy" in streams; did you mean "history"?',
      ],
      [
        { streams: { invoices: { histroy: true } } },
        '/streams/invoices/histroy',
        'unknown key "histroy" in streams.invoices; did you mean "history"?',
      ],
      [
        { streams: { invoice: { history: true } } },
        '/streams/invoice',
        'unknown key "invoice" in streams; did you mean "invoices"?',
      ],
      [
        { worker: { concurency: 2 } },
        '/worker/concurency',
        'unknown key "concurency" in worker; did you mean "concurrency"?',
      ],
      [{ operatrs: ['1'] }, '/operatrs', 'unknown key "operatrs" in the file; did you mean "operators"?'],
      [
        { streamSchedules: { invoics: { everySeconds: 5 } } },
        '/streamSchedules/invoics',
        'unknown key "invoics" in streamSchedules; did you mean "invoices"?',
      ],
      [{ schedule: { every: 5 } }, '/schedule/every', 'unknown key "every" in schedule'],
      [{ reconcileSchedule: { crn: '* * * * *' } }, '/reconcileSchedule/crn', 'did you mean "cron"?'],
    ] as const;
    for (const [content, pointer, problem] of cases) {
      const file = configFile(content);
      const error = errorOf(() => loadSettings({ TMS_SYNC_CONFIG: file }));
      expect(error.setting).toBe(`${file}${pointer}`);
      expect(error.message).toContain(problem);
    }
  });

  it('takes a list as an array or a comma-separated string, in the file as in the environment', () => {
    const file = configFile({
      operators: '1001, 1002',
      streams: { include: 'invoices,clients', exclude: ['clients'], history: 'invoices' },
    });
    const settings = loadSettings({ TMS_SYNC_CONFIG: file });
    expect(settings.operators).toEqual(['1001', '1002']);
    expect(settings.streams).toEqual({
      include: ['invoices', 'clients'],
      exclude: ['clients'],
      history: ['invoices'],
    });
    expect(loadSettings({ TMS_SYNC_CONFIG: configFile({ operators: [1001, '1002'] }) }).operators).toEqual([
      '1001',
      '1002',
    ]);
    expect(loadSettings({ TMS_OPERATORS: '["1001", "1002"]' }).operators).toEqual(['1001', '1002']);
    expect(errorOf(() => loadSettings({ TMS_OPERATORS: '[1001' })).setting).toBe('TMS_OPERATORS');
    const unknown = configFile({ streams: { include: 'invoices,chat' } });
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: unknown })).message).toBe(
      'invalid configuration: streams.include: no such stream: chat',
    );
  });

  it('reads streams.include and streams.exclude, refusing an unknown stream in them', () => {
    const file = configFile({ streams: { include: ['invoices', 'clients'], exclude: ['clients'] } });
    expect(loadSettings({ TMS_SYNC_CONFIG: file }).streams).toEqual({
      include: ['invoices', 'clients'],
      exclude: ['clients'],
      history: [],
    });
    const unknown = configFile({ streams: { exclude: ['chat'] } });
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: unknown })).message).toBe(
      'invalid configuration: streams.exclude: no such stream: chat',
    );
  });

  it('reads the streams in history mode: all, a list, or per stream, refusing an unknown stream', () => {
    const streamsOf = (streams: unknown) =>
      loadSettings({ TMS_SYNC_CONFIG: configFile({ streams }) }).streams;
    expect(streamsOf({ history: ['invoices', 'invoice_lines'] }).history).toEqual([
      'invoices',
      'invoice_lines',
    ]);
    expect(streamsOf({ history: true }).history).toEqual(Object.keys(streams));
    expect(streamsOf({ history: true, tasks: { history: false } }).history).not.toContain('tasks');
    expect(streamsOf({ exclude: [], invoices: { history: true } }).history).toEqual(['invoices']);
    expect(loadSettings({}).streams.history).toEqual([]);
    expect(errorOf(() => streamsOf({ history: ['chat'] })).message).toBe(
      'invalid configuration: streams.history: no such stream: chat',
    );
    expect(errorOf(() => streamsOf({ chat: { history: true } })).message).toMatch(
      /streams\/chat: unknown key "chat" in streams: neither a setting of streams nor a stream of the catalogue/,
    );
  });

  it('uses the documented worker defaults when nothing is set', () => {
    expect(loadSettings({}).worker).toEqual({
      queueName: 'tms-sync',
      queuePrefix: 'tms',
      concurrency: 4,
      connectionConcurrency: 2,
      connectionOwners: 1,
      attempts: 5,
      backoffMs: 10_000,
      lockMs: 30_000,
      maxStalls: 20,
      rateLimitPauseMs: 30_000,
      shutdownTimeoutMs: 30_000,
      connectionViews: 'tms_all',
      dashboardToken: undefined,
      webhookSecret: undefined,
    });
  });

  it('reads the worker settings from the config file and lets the environment win', () => {
    const file = configFile({
      worker: { queueName: 'from-file', concurrency: 2, webhookSecret: 'file-secret' },
    });
    const settings = loadSettings({
      TMS_SYNC_CONFIG: file,
      WORKER_CONCURRENCY: '8',
      OPS_DASHBOARD_TOKEN: 'token',
    });
    expect(settings.worker).toMatchObject({
      queueName: 'from-file',
      concurrency: 8,
      webhookSecret: 'file-secret',
      dashboardToken: 'token',
      attempts: 5,
    });
  });

  it('names the config file path of a wrong worker value', () => {
    const file = configFile({ worker: { lockMs: 5 } });
    expect(errorOf(() => loadSettings({ TMS_SYNC_CONFIG: file })).setting).toBe(`${file}/worker/lockMs`);
  });

  it('accepts in the config file every setting there is, each at its default', () => {
    // Which connection runs is the command line's (--connection), not the file's.
    const { connection: _chosenByTheCommand, ...fileSettings } = defaultSettings;
    const settings = loadSettings({ TMS_SYNC_CONFIG: configFile(fileSettings) });
    expect(settings).toEqual(defaultSettings);
  });

  it('accepts in the config file every worker field docs/worker.md names', () => {
    const docs = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'worker.md'), 'utf8');
    const fields = [...docs.matchAll(/^\| `[A-Z_]+`\s*\| `(\w+)`/gm)].map((match) => match[1]!);
    expect(fields).toContain('maxStalls');
    for (const field of fields) {
      const value = (defaultSettings.worker as unknown as Record<string, unknown>)[field] ?? 'a-token-value';
      const settings = loadSettings({ TMS_SYNC_CONFIG: configFile({ worker: { [field]: value } }) });
      expect((settings.worker as unknown as Record<string, unknown>)[field]).toEqual(value);
    }
  });
});
