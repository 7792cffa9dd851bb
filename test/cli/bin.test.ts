import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const bin = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin['tms-sync'] as string;

const run = (args: string[], nodeFlags: string[] = [], env: NodeJS.ProcessEnv = process.env) =>
  execFileSync(process.execPath, [...nodeFlags, join(root, bin), ...args], { encoding: 'utf8', env });

describe("the package's command", () => {
  it('is the build in dist/, and runs as it is: nothing built or cached when it starts', () => {
    expect(bin).toBe('dist/tms-sync.js');
    const before = readdirSync(join(root, 'dist')).sort();
    expect(run(['sync', '--help'])).toContain('Usage: tms-sync sync');
    expect(readdirSync(join(root, 'dist')).sort()).toEqual(before);
  });

  it("loads only the named command's packages: sync none of the worker's", () => {
    const work = mkdtempSync(join(tmpdir(), 'tms-bin-imports-'));
    try {
      // A module hook that writes down every package the process imports as an ES module, and a
      // preload that writes down, at exit, every package it required as CommonJS.
      const log = join(work, 'imports.log');
      const required = join(work, 'required.cjs');
      writeFileSync(
        required,
        `process.on('exit', () => {
  const names = Object.keys(require.cache).map((file) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(file)?.[1]);
  require('node:fs').appendFileSync(${JSON.stringify(log)}, names.filter(Boolean).join('\\n') + '\\n');
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
      const imported = (args: string[], env?: NodeJS.ProcessEnv) => {
        writeFileSync(log, '');
        run(args, ['--import', register, '--require', required], env);
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
      // The HTTP client is loaded as installed (an `npm update` reaches it), and only once a
      // client is made: a command that never sends a request never evaluates it.
      expect(sync.has('undici')).toBe(false);
      const { REDIS_URL: _redis, ...env } = process.env;
      const status = imported(['status'], {
        ...env,
        STORE_URL: `sqlite:${join(work, 'store.sqlite')}`,
        TMS_BASE_URL: 'http://127.0.0.1:9',
        TMS_API_TOKEN: 'unused',
      });
      expect(status.has('better-sqlite3')).toBe(true);
      expect(status.has('undici')).toBe(false);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
