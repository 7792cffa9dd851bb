import { createHash } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { type RunAs, runCli } from './support/run-cli.js';

// Permissions bind no one as root: there, the CLI runs as `nobody`, as an operator's account would.
const asOperator: RunAs | undefined = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

const dir = mkdtempSync(join(tmpdir(), 'tms-bad-store-'));
const files = join(dir, 'files');
const at = (name: string) => join(files, name);

interface BadStore {
  readonly name: string;
  readonly url: string;
  /** What the one line must say after `STORE_URL=<url>: it `. */
  readonly problem: RegExp;
}

const badStores: readonly BadStore[] = [
  { name: 'a directory', url: `sqlite:${at('a-directory')}`, problem: /is a directory/ },
  { name: 'a device', url: 'sqlite:/dev/null', problem: /is not a regular file/ },
  {
    name: 'a dangling symbolic link',
    url: `sqlite:${at('dangling.sqlite')}`,
    problem: /is a symbolic link to .*nowhere\/store\.sqlite, which does not exist/,
  },
  { name: 'an unreadable file', url: `sqlite:${at('unreadable.sqlite')}`, problem: /cannot be read/ },
  { name: 'a read-only file', url: `sqlite:${at('read-only.sqlite')}`, problem: /is read-only/ },
  { name: 'an in-memory database', url: 'sqlite::memory:', problem: /is an in-memory database/ },
  {
    name: 'a directory that does not exist (a typo)',
    url: `sqlite:${at('no-such-dir')}/tms.sqlite`,
    problem: /is in .*no-such-dir, which does not exist: create it first/,
  },
];

/** Every entry under `path` with a hash of its bytes (or its kind): "nothing changed" made checkable. */
function fingerprint(path: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(path).map((name) => {
      const entry = join(path, name);
      const stat = lstatSync(entry);
      if (!stat.isFile() || (stat.mode & 0o444) === 0) return [name, `${stat.mode}`];
      return [name, `${stat.mode} ${createHash('sha256').update(readFileSync(entry)).digest('hex')}`];
    }),
  );
}

describe('a STORE_URL whose SQLite path cannot hold a store', () => {
  let before: Record<string, string>;

  beforeAll(async () => {
    mkdirSync(at('a-directory'), { recursive: true });
    mkdirSync(join(dir, 'default'));
    symlinkSync(join(dir, 'nowhere', 'store.sqlite'), at('dangling.sqlite'));
    for (const name of ['unreadable.sqlite', 'read-only.sqlite']) {
      await (await openStore(`sqlite:${at(name)}`)).close();
    }
    chmodSync(at('unreadable.sqlite'), 0o000);
    chmodSync(at('read-only.sqlite'), 0o444);
    // The operator may make files here: only the store file's own permissions stand in the way.
    chmodSync(dir, 0o755);
    chmodSync(files, 0o777);
    before = fingerprint(files);
    // Built once by this user, so the operator's runs find the CLI's bundle fresh.
    await runCli(['--version'], {});
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.concurrent.each(badStores)(
    'stops on $name with one line naming STORE_URL and the problem, exit code 2, nothing made',
    async ({ url, problem }) => {
      const result = await runCli(
        ['sync'],
        { STORE_URL: url, TMS_BASE_URL: 'http://127.0.0.1:9', TMS_API_TOKEN: 'unused' },
        30_000,
        { as: asOperator },
      );
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`cannot open the store at STORE_URL=${url}: it `);
      expect(lines[0]).toMatch(problem);
      expect(result.code).toBe(2);
      expect(fingerprint(files)).toEqual(before);
    },
  );

  it('makes the default ./data directory, and only that one', async () => {
    const cwd = join(dir, 'default');
    const made = await runCli(['migrate'], {}, 30_000, { cwd });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(readdirSync(join(cwd, 'data'))).toContain('tms.sqlite');
    const nested = await runCli(['migrate'], { STORE_URL: 'sqlite:./data/more/tms.sqlite' }, 30_000, { cwd });
    expect(nested.stderr).toMatch(
      /^tms-sync migrate: cannot open the store at STORE_URL=.*which does not exist/,
    );
    expect(nested.code).toBe(2);
    expect(readdirSync(join(cwd, 'data'))).not.toContain('more');
  });
});
