import { execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'tms-package-'));
/** An empty folder a user installs the tarball into. */
const app = join(work, 'app');
mkdirSync(app);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const exec = promisify(execFile);

/** `npx tms-sync <args>` in the install folder, as a user runs it. */
const npx = (args: string[]) =>
  exec('npx', ['--offline', 'tms-sync', ...args], { cwd: app, encoding: 'utf8', timeout: 120_000 });

let packed: string[] = [];

beforeAll(async () => {
  // npm pack runs `prepare` (the build) first, as publishing does.
  const report = JSON.parse(
    execFileSync(npm, ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' }),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  packed = report[0]!.files.map((file) => file.path);
  // The tarball's dependencies come from npm's cache where it has them (the checkout's `npm ci`
  // filled it). Install scripts are skipped: the only one that matters, better-sqlite3's, would
  // compile the addon from source here (its prebuilt binaries are downloaded from outside the
  // registry) for a minute or two; the checkout's build of the same version is copied in instead.
  execFileSync(
    npm,
    [
      'install',
      join(work, report[0]!.filename),
      '--prefer-offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
    ],
    { cwd: app, encoding: 'utf8', stdio: 'pipe' },
  );
  cpSync(
    join(root, 'node_modules', 'better-sqlite3', 'build'),
    join(app, 'node_modules', 'better-sqlite3', 'build'),
    {
      recursive: true,
    },
  );
}, 240_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the package, packed and installed into an empty folder', () => {
  it('holds the build and what it needs (the docs its --help names), and no sources, tests or benchmarks', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/tms-sync.js',
        'dist/sqlite-thread.js',
        'docs/worker.md',
      ]),
    );
    const shipped = /^(dist\/|docs\/|config\/tms-sync\.example\.jsonc$|package\.json$|README\.md$)/;
    expect(packed.filter((path) => !shipped.test(path))).toEqual([]);
    expect(packed.filter((path) => /\.test\.|\.ts$/.test(path) && !path.endsWith('.d.ts'))).toEqual([]);
  });

  it('installs no build tool: esbuild, tsx and typescript are development dependencies', () => {
    const installed = readdirSync(join(app, 'node_modules'));
    expect(installed.filter((name) => ['esbuild', 'tsx', 'typescript', 'vitest'].includes(name))).toEqual([]);
    // The whole production tree, as `npm ls --omit=dev --all` shows it.
    const tree = execFileSync(npm, ['ls', '--omit=dev', '--all', '--parseable'], {
      cwd: app,
      encoding: 'utf8',
    });
    expect(tree.split('\n').filter((path) => /\/node_modules\/(esbuild|tsx|typescript)$/.test(path))).toEqual(
      [],
    );
  });

  it('answers `npx tms-sync --help`', async () => {
    const { stdout } = await npx(['--help']);
    expect(stdout).toContain('Usage: tms-sync');
    expect(stdout).toContain('demo');
  });

  it('runs `npx tms-sync demo`: the simulator synced into ./data/demo.sqlite', async () => {
    const { stdout } = await npx(['demo']);
    expect(stdout).toContain('open_amount');
    expect(readdirSync(join(app, 'data'))).toContain('demo.sqlite');
  }, 150_000);

  it('runs `npx tms-sync sim` until it is stopped', async () => {
    // Its own process group, so that stopping it stops tms-sim too, not only npx.
    const child = spawn('npx', ['--offline', 'tms-sync', 'sim', '--port', '0', '--invoices', '10'], {
      cwd: app,
      detached: true,
    });
    let stdout = '';
    const listening = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('tms-sim listening on http://')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`tms-sim exited (${code}) before listening: ${stdout}`)));
    });
    try {
      await listening;
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
    expect(stdout).toMatch(/tms-sim listening on http:\/\/127\.0\.0\.1:\d+/);
  }, 60_000);
});
