import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tms-secrets-settings-'));
const malformedConfig = join(dir, 'malformed.json');
writeFileSync(malformedConfig, '{\n  "apiToken": SECRET-IN-FILE-1234567890\n}\n');
const unterminatedConfig = join(dir, 'unterminated.json');
writeFileSync(unterminatedConfig, '{"worker": {"dashboardToken": "SECRET-IN-FILE-abcdefgh');

interface Case {
  readonly name: string;
  readonly env: NodeJS.ProcessEnv;
  readonly secret: string;
  /** What the one line must still say, so the test sees the error it meant to cause. */
  readonly names: RegExp;
}

// Port 1 refuses connections: the store cannot be reached and the error shows STORE_URL.
const cases: readonly Case[] = [
  {
    name: 'a password with an "@" in STORE_URL',
    env: { STORE_URL: 'postgres://user:pw@Secret2@127.0.0.1:1/db' },
    secret: 'Secret2',
    names: /STORE_URL=postgres:\/\/user:\*\*\*@127\.0\.0\.1:1\/db/,
  },
  {
    name: 'a password with a "/" in STORE_URL',
    env: { STORE_URL: 'postgres://user:pw/Secret3@127.0.0.1:1/db' },
    secret: 'Secret3',
    names: /STORE_URL "postgres:\/\/user:\*\*\*@127\.0\.0\.1:1\/db" is not a valid URL/,
  },
  {
    name: 'a password in the query of STORE_URL',
    env: { STORE_URL: 'postgres://127.0.0.1:1/db?password=Secret4' },
    secret: 'Secret4',
    names: /STORE_URL=postgres:\/\/127\.0\.0\.1:1\/db\?password=\*\*\*/,
  },
  {
    name: 'a malformed config file holding a token',
    env: { TMS_SYNC_CONFIG: malformedConfig },
    secret: 'SECRET-IN',
    names: /TMS_SYNC_CONFIG: .*malformed\.json is not JSON \(\w+ at line 2, column \d+\)/,
  },
  {
    name: 'a config file cut short inside a token',
    env: { TMS_SYNC_CONFIG: unterminatedConfig },
    secret: 'SECRET-IN',
    names:
      /TMS_SYNC_CONFIG: .*unterminated\.json is not JSON \(UnexpectedEndOfString at line 1, column \d+\)/,
  },
];

describe('secrets in the settings', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.concurrent.each(cases)('$name never shows in the error (exit 2)', async ({ env, secret, names }) => {
    const result = await runCli(['sync'], {
      TMS_BASE_URL: 'http://127.0.0.1:9',
      TMS_API_TOKEN: 'unused-token',
      ...env,
    });
    expect(result.code).toBe(2);
    const lastLine = result.stderr.trimEnd().split('\n').at(-1);
    expect(lastLine).toMatch(names);
    expect(result.stdout + result.stderr).not.toContain(secret);
  });
});
