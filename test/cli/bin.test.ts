import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const shipped = ['bin', 'src', 'config', 'schemas', 'jobs', 'package.json', 'package-lock.json'];

const run = (bin: string, args: string[], env: NodeJS.ProcessEnv = process.env) =>
  execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8', env });

/** A copy of the shipped files with the packages linked in, so its bundle cache is its own. */
function install(at: string): void {
  for (const name of shipped)
    cpSync(join(root, name), join(at, name), { recursive: true, preserveTimestamps: true });
  mkdirSync(join(at, 'node_modules'));
  for (const name of readdirSync(join(root, 'node_modules')))
    if (name !== '.cache') symlinkSync(join(root, 'node_modules', name), join(at, 'node_modules', name));
}

describe('bin/tms-sync.js', () => {
  it('runs a bundle of the current sources and answers like the sources', () => {
    const bin = join(root, 'bin', 'tms-sync.js');
    const bundled = run(bin, ['sync', '--help']);
    const fromSource = run(bin, ['sync', '--help'], { ...process.env, TMS_SYNC_TSX: '1' });
    expect(bundled).toContain('Usage: tms-sync sync');
    expect(bundled).toBe(fromSource);
  });

  it("loads only the named command's packages: sync none of the worker's", () => {
    const work = mkdtempSync(join(tmpdir(), 'tms-bin-imports-'));
    try {
      // A module hook that writes down every package the process imports as an ES module, and a
      // preload that writes down, at exit, every package it required (the bundle is CommonJS) and
      // every built-in module it loaded (as node:<name>).
      const log = join(work, 'imports.log');
      const required = join(work, 'required.cjs');
      writeFileSync(
        required,
        `process.on('exit', () => {
  const names = Object.keys(require.cache).map((file) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(file)?.[1]);
  const builtins = process.moduleLoadList.flatMap((entry) => /^NativeModule ([a-z_0-9]+)$/.exec(entry)?.[1] ?? []);
  require('node:fs').appendFileSync(${JSON.stringify(log)}, [...names.filter(Boolean), ...builtins.map((name) => 'node:' + name)].join('\\n') + '\\n');
});`,
      );
      const hooks = join(work, 'hooks.mjs');
      writeFileSync(
        hooks,
        `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (!/^(node:|[./]|file:)/.test(specifier)) appendFileSync(${JSON.stringify(log)}, specifier + '\\n');
  return next(specifier, context);
}`,
      );
      const register = join(work, 'register.mjs');
      writeFileSync(
        register,
        `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
      );
      const imported = (args: string[]) => {
        writeFileSync(log, '');
        execFileSync(
          process.execPath,
          ['--import', register, '--require', required, join(root, 'bin', 'tms-sync.js'), ...args],
          { encoding: 'utf8' },
        );
        return new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean));
      };
      const workerOnly = [
        'bullmq',
        'fastify',
        '@bull-board/api',
        '@bull-board/fastify',
        'prom-client',
        'ioredis',
      ];
      expect([...imported(['worker', '--help'])]).toEqual(expect.arrayContaining(['bullmq', 'fastify']));
      const sync = imported(['sync', '--help']);
      expect(workerOnly.filter((name) => sync.has(name))).toEqual([]);
      expect(sync.has('pg')).toBe(false);
      // undici's HTTP/2 client (node:http2, node:tls) waits for an h2 connection, which never comes.
      expect(sync.has('node:http')).toBe(true);
      expect([...sync].filter((name) => name === 'node:http2' || name === 'node:tls')).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  describe('a deploy that keeps file times (rsync -a, tar, cp -p) over an older cache', () => {
    const work = mkdtempSync(join(tmpdir(), 'tms-bin-'));
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    it('runs the deployed code, not the cached bundle of the code before', () => {
      const installed = join(work, 'installed');
      install(installed);
      const bin = join(installed, 'bin', 'tms-sync.js');
      expect(run(bin, ['--help'])).toContain('Mirror a transport management system');

      // The next release, built elsewhere long ago: its files carry times older than the cache.
      const release = join(work, 'release');
      cpSync(join(root, 'src'), join(release, 'src'), { recursive: true, preserveTimestamps: true });
      const main = join(release, 'src', 'cli', 'main.ts');
      writeFileSync(
        main,
        readFileSync(main, 'utf8').replace('Mirror a transport', 'Release two mirrors a transport'),
      );
      const longAgo = new Date('2020-01-01T00:00:00Z');
      utimesSync(main, longAgo, longAgo);
      cpSync(join(release, 'src'), join(installed, 'src'), { recursive: true, preserveTimestamps: true });

      expect(run(bin, ['--help'])).toContain('Release two mirrors a transport management system');
      // Two bundles, one per release: the bundle ran, not the sources through tsx.
      expect(readdirSync(join(installed, 'node_modules', '.cache', 'tms-sync'))).toHaveLength(2);
    });
  });

  describe("V8's code cache of each command", () => {
    const work = mkdtempSync(join(tmpdir(), 'tms-bin-cache-'));
    afterAll(() => rmSync(work, { recursive: true, force: true }));
    install(work);
    const bin = join(work, 'bin', 'tms-sync.js');
    const build = () => {
      const builds = join(work, 'node_modules', '.cache', 'tms-sync');
      return join(builds, readdirSync(builds)[0]!);
    };

    it("is written by a command's first run and used as it is by the next", () => {
      const first = run(bin, ['sync', '--help']);
      const cache = join(build(), 'sync-help.code-cache');
      const written = statSync(cache);
      expect(written.size).toBeGreaterThan(10_000);
      expect(run(bin, ['sync', '--help'])).toBe(first);
      // Accepted by V8, so not written again (a rewrite is a new file, renamed into place).
      expect(statSync(cache).ino).toBe(written.ino);
      expect(existsSync(join(build(), 'tms-sync-help.code-cache'))).toBe(false);
    });

    it('is replaced when V8 rejects it, and the run answers as usual', () => {
      const first = run(bin, ['schema', '--help']);
      const cache = join(build(), 'schema-help.code-cache');
      writeFileSync(cache, 'not a code cache');
      expect(run(bin, ['schema', '--help'])).toBe(first);
      expect(statSync(cache).size).toBeGreaterThan(10_000);
    });

    it('is not written by a run that fails', () => {
      expect(() => run(bin, ['no-such-command'])).toThrow(/unknown command/);
      expect(readdirSync(build()).filter((name) => name.startsWith('no-such'))).toEqual([]);
    });
  });
});
