#!/usr/bin/env node
// Runs the TypeScript sources with no build step to remember. The first start after a change
// bundles them with esbuild (~0.1 s; packages stay external) into node_modules/.cache/tms-sync/,
// and node loads that plain JavaScript: measured ~60 MB less memory and ~1 s faster start than
// passing every module, node_modules included, through tsx's loader. Where the cache cannot be
// written (a read-only install), or with TMS_SYNC_TSX=1, tsx runs the sources directly.
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';

// A sync allocates a page's worth of short-lived objects per page; V8's default heap growth let the
// old generation swell with them (peak RSS 292 MB at 1,000,000 invoices against 192 MB at 200,000,
// live heap ~30 MB). Growing the heap by 10% at a time keeps it flat (187 MB) at the same speed,
// without capping it for commands that need more (BENCHMARKS.md).
v8.setFlagsFromString('--heap-growing-percent=10');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDirs = ['src', 'config', 'schemas', 'jobs'];
const bundle = join(root, 'node_modules', '.cache', 'tms-sync', 'tms-sync.mjs');

await import(process.env.TMS_SYNC_TSX === '1' ? await fromSource() : await freshBundle());

/** The bundle's URL, rebuilt first when a source file is newer; the sources' when that fails. */
async function freshBundle() {
  try {
    if (newestSource() > modified(bundle)) {
      const { buildSync } = await import('esbuild');
      // Written aside and renamed: processes starting together never load a half-written file.
      const written = `${bundle}.${process.pid}.tmp`;
      mkdirSync(dirname(bundle), { recursive: true });
      buildSync({
        entryPoints: [join(root, 'src', 'cli', 'main.ts')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        outfile: written,
        logLevel: 'warning',
      });
      renameSync(written, bundle);
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
