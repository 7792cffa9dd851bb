#!/usr/bin/env node
// Runs the TypeScript sources with no build step to remember. The first start after a change
// bundles them with esbuild (~0.1 s; packages stay external) into node_modules/.cache/tms-sync/,
// and node loads that plain JavaScript: much less memory and a faster start than passing every
// module, node_modules included, through tsx's loader (BENCHMARKS.md, "What moved the figures"). Where the cache cannot be
// written (a read-only install), or with TMS_SYNC_TSX=1, tsx runs the sources directly.
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';

// A sync allocates a page's worth of short-lived objects per page; V8's default heap growth let the
// old generation swell with them as the data set grew (the live heap stays small). Growing the
// heap by 10% at a time keeps peak memory flat at the same speed, without capping it for commands
// that need more (BENCHMARKS.md, "What moved the figures").
v8.setFlagsFromString('--heap-growing-percent=10');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDirs = ['src', 'config', 'schemas', 'jobs'];
const cache = join(root, 'node_modules', '.cache', 'tms-sync');
const bundle = join(cache, 'tms-sync.mjs');
// The SQLite thread's module is a second entry, written beside the CLI's bundle, where the bundled
// code looks for it (src/store/sqlite/sqlite-thread-script.ts).
const entries = {
  'tms-sync': join(root, 'src', 'cli', 'main.ts'),
  'sqlite-thread': join(root, 'src', 'store', 'sqlite', 'sqlite-thread-worker.ts'),
};

await import(process.env.TMS_SYNC_TSX === '1' ? await fromSource() : await freshBundle());

/** The bundle's URL, rebuilt first when a source file is newer; the sources' when that fails. */
async function freshBundle() {
  try {
    if (newestSource() > modified(bundle)) {
      const { buildSync } = await import('esbuild');
      // Written aside and renamed, the CLI last: processes starting together never load a
      // half-written file, and a fresh CLI bundle always finds its thread's module.
      const aside = join(cache, `build-${process.pid}`);
      mkdirSync(aside, { recursive: true });
      buildSync({
        entryPoints: entries,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        outdir: aside,
        outExtension: { '.js': '.mjs' },
        logLevel: 'warning',
      });
      renameSync(join(aside, 'sqlite-thread.mjs'), join(cache, 'sqlite-thread.mjs'));
      renameSync(join(aside, 'tms-sync.mjs'), bundle);
      rmSync(aside, { recursive: true, force: true });
    }
    return pathToFileURL(bundle).href;
  } catch {
    return fromSource();
  }
}

async function fromSource() {
  const { register } = await import('tsx/esm/api');
  register();
  return pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href;
}

function newestSource() {
  let newest = 0;
  for (const dir of sourceDirs) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile())
        newest = Math.max(newest, modified(join(entry.parentPath ?? entry.path, entry.name)));
    }
  }
  return newest;
}

function modified(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
