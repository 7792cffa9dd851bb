#!/usr/bin/env node
// Runs the TypeScript sources with no build step to remember. The first start after a change
// bundles them with esbuild (under a second) into node_modules/.cache/tms-sync/<hash of the sources>/, one
// chunk per command, and node loads that plain JavaScript: much less memory and a faster start than
// passing every module, node_modules included, through tsx's loader (BENCHMARKS.md, "What moved
// the figures"). Where the cache cannot be written (a read-only install), or with TMS_SYNC_TSX=1,
// tsx runs the sources directly.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';

// A sync allocates a page's worth of short-lived objects per page; V8's default heap growth let the
// old generation swell with them as the data set grew (the live heap stays small). Growing the
// heap by 10% at a time keeps peak memory flat at the same speed, without capping it for commands
// that need more (BENCHMARKS.md, "What moved the figures").
v8.setFlagsFromString('--heap-growing-percent=10');
// undici parses HTTP with llhttp compiled to WebAssembly. V8 soon recompiles llhttp's one huge
// function with its optimizing compiler: ~0.1 s of CPU on another thread in every process, and a
// short run waited 70-90 ms at exit for it to finish. The baseline compiler's code parses answers
// fast enough for us: without the recompile, `sync` of a current store takes 0.31 s instead of
// 0.42 s, of 200,000 invoices 3.03 s instead of 3.23 s, and child streams run as fast
// (BENCHMARKS.md, "What moved the figures").
v8.setFlagsFromString('--liftoff-only');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDirs = ['src', 'config', 'schemas', 'jobs'];
// Besides the sources, what shapes the bundle: this script (the build options) and the lockfile
// (esbuild's version).
const buildInputs = [fileURLToPath(import.meta.url), join(root, 'package-lock.json')];
const cache = join(root, 'node_modules', '.cache', 'tms-sync');
/** Builds kept besides the current one: a process started on an older build may still open its SQLite thread. */
const keptBuilds = 4;
// The SQLite thread's module is a second entry, written beside the CLI's bundle, where the bundled
// code looks for it (src/store/sqlite/sqlite-thread-script.ts).
const entries = {
  'tms-sync': join(root, 'src', 'cli', 'main.ts'),
  'sqlite-thread': join(root, 'src', 'store', 'sqlite', 'sqlite-thread-worker.ts'),
};

/**
 * The URL of the bundle built from the sources as they are now; the sources' when it cannot be
 * built. Bundles are keyed on the sources' content, not their times: a deploy that keeps file times
 * (rsync -a, tar, cp -p) over an older cache still gets a bundle of what it deployed.
 */
async function freshBundle() {
  try {
    const dir = join(cache, sourcesHash());
    const bundle = join(dir, 'tms-sync.mjs');
    if (!existsSync(bundle)) await build(dir);
    return pathToFileURL(bundle).href;
  } catch {
    return fromSource();
  }
}

/**
 * Packages whose hundreds of ES modules cost a start more to resolve and load one by one than
 * their code inlined (~0.25 s together): bundled in. Every other package stays external: native
 * addons, packages that read files beside their code (BullMQ's Lua scripts), pino's transports.
 */
const inlined = ['kysely', '@sinclair/typebox', 'undici', 'commander', 'p-map', 'p-retry'];

/** esbuild's `packages: 'external'`, but for the inlined ones. */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path }) => {
      const inline = inlined.some((name) => path === name || path.startsWith(`${name}/`));
      return inline ? undefined : { path, external: true };
    });
  },
};

/** Bundles into a folder of its own, then renames it into place whole: a process never sees half a build. */
async function build(dir) {
  const esbuild = await import('esbuild');
  const aside = join(cache, `build-${process.pid}`);
  rmSync(aside, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: entries,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [externalPackages],
    // The inlined CommonJS packages require Node's built-ins: give ES module chunks a `require`.
    banner: {
      js: "import { createRequire as tmsSyncRequire } from 'node:module'; const require = tmsSyncRequire(import.meta.url);",
    },
    // Each command in a chunk of its own, loaded when run (src/cli/commands.ts): `sync` never
    // loads the worker's packages. Chunks sit beside the entries (the SQLite thread's module is
    // looked for beside the code that starts it).
    splitting: true,
    outdir: aside,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
    // A third less for V8 to parse at every start (2.5 -> 1.7 MB; first request ~15 ms sooner).
    // Names stay, so stack traces still name their functions; TMS_SYNC_TSX=1 runs the sources.
    minifyWhitespace: true,
    minifySyntax: true,
  });
  try {
    renameSync(aside, dir);
  } catch (error) {
    // Another process built the same sources first: theirs is as good.
    rmSync(aside, { recursive: true, force: true });
    if (!existsSync(join(dir, 'tms-sync.mjs'))) throw error;
  }
  pruneBuilds(dir);
}

function pruneBuilds(current) {
  const builds = readdirSync(cache, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^[0-9a-f]{40}$/.test(entry.name))
    .map((entry) => join(cache, entry.name))
    .filter((dir) => dir !== current)
    .map((dir) => ({ dir, at: statSync(dir).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { dir } of builds.slice(keptBuilds)) rmSync(dir, { recursive: true, force: true });
}

/** SHA-1 of every source file's path and content (a few ms for the whole tree). */
function sourcesHash() {
  const files = [...buildInputs];
  for (const dir of sourceDirs) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(join(entry.parentPath ?? entry.path, entry.name));
    }
  }
  const hash = createHash('sha1');
  for (const file of files.sort()) {
    hash.update(`${relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

async function fromSource() {
  const { register } = await import('tsx/esm/api');
  register();
  return pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href;
}

await import(process.env.TMS_SYNC_TSX === '1' ? await fromSource() : await freshBundle());
