#!/usr/bin/env node
// Runs the TypeScript sources with no build step to remember. The first start after a change
// bundles them with esbuild (under a second) into node_modules/.cache/tms-sync/<hash of the
// sources>/, and node runs that plain JavaScript with V8's code cache of the command it runs: much
// less memory and a faster start than passing every module, node_modules included, through tsx's
// loader (BENCHMARKS.md, "What moved the figures"). Where the cache cannot be written (a read-only
// install), or with TMS_SYNC_TSX=1, tsx runs the sources directly.
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

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
// V8 drops the bytecode of functions not run for a while, and a code cache taken at exit (runBundle)
// holds only what is still compiled then: the bundle's wrapper, run once at start, was gone, and
// every start parsed all 1.9 MB again (~25 ms) despite the cache. Kept, a current-store `sync`
// sends its first request ~40 ms sooner (BENCHMARKS.md, "What moved the figures"). The bundle's
// bytecode is a few MB at most, kept for the life of the process.
v8.setFlagsFromString('--no-flush-bytecode');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDirs = ['src', 'config', 'schemas', 'jobs'];
// Besides the sources, what shapes the bundle: this script (the build options) and the lockfile
// (esbuild's version).
const buildInputs = [fileURLToPath(import.meta.url), join(root, 'package-lock.json')];
const cache = join(root, 'node_modules', '.cache', 'tms-sync');
/** Builds kept besides the current one: a process started on an older build may still open its SQLite thread. */
const keptBuilds = 4;
// The SQLite thread's module is a second entry, written beside the CLI's bundle, where the bundled
// code looks for it (src/store/sqlite/sqlite-thread-script.ts). Each entry is one CommonJS file:
// V8 caches a script's compiled code, not an ES module's (Node 20 has no module compile cache).
const entries = {
  'tms-sync': join(root, 'src', 'cli', 'main.ts'),
  'sqlite-thread': join(root, 'src', 'store', 'sqlite', 'sqlite-thread-worker.ts'),
};

/**
 * The path of the bundle built from the sources as they are now; undefined when it cannot be
 * built. Bundles are keyed on the sources' content, not their times: a deploy that keeps file times
 * (rsync -a, tar, cp -p) over an older cache still gets a bundle of what it deployed.
 */
async function freshBundle() {
  try {
    const dir = join(cache, sourcesHash());
    const bundle = join(dir, 'tms-sync.cjs');
    if (!existsSync(bundle)) await build(dir);
    return bundle;
  } catch {
    return undefined;
  }
}

/**
 * Packages whose many modules cost a start more to resolve and load one by one than their code
 * inlined (~0.25 s together, and pino's and jsonc-parser's ~15 ms more): bundled in, with the
 * packages they import themselves. Every other package stays external: native addons and packages
 * that read files beside their code (BullMQ's Lua scripts). We use no pino transport, the one part
 * of pino that needs its own files.
 */
const inlined = [
  'kysely',
  '@sinclair/typebox',
  'undici',
  'commander',
  'p-map',
  'p-retry',
  'pino',
  'jsonc-parser',
];

/** esbuild's `packages: 'external'`, but for the inlined ones and what they import. */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    // jsonc-parser's main build is UMD, whose requires esbuild cannot follow: its ES module build.
    build.onResolve({ filter: /^jsonc-parser$/ }, () => ({
      path: join(root, 'node_modules', 'jsonc-parser', 'lib', 'esm', 'main.js'),
    }));
    // undici loads its HTTP/2 client, and with it node:http2 and node:tls (~5 ms of every start),
    // for a connection that negotiates h2, which ours never do (no allowH2): loaded at first use.
    build.onResolve({ filter: /^\.\/client-h2\.js$/ }, ({ path, importer }) =>
      importer.endsWith(join('undici', 'lib', 'dispatcher', 'client.js'))
        ? { path: join(dirname(importer), path), namespace: 'on-first-use' }
        : undefined,
    );
    build.onLoad({ filter: /./, namespace: 'on-first-use' }, ({ path }) => ({
      contents: `let loaded; module.exports = (...args) => (loaded ??= require(${JSON.stringify(path)}))(...args);`,
      resolveDir: dirname(path),
    }));
    build.onResolve({ filter: /^[^./]/ }, ({ path, importer }) => {
      // Only inlined packages are bundled, so an importer inside node_modules is one of them.
      const inline =
        inlined.some((name) => path === name || path.startsWith(`${name}/`)) ||
        importer.includes(`${sep}node_modules${sep}`);
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
    format: 'cjs',
    target: 'node20',
    plugins: [externalPackages],
    // Strict, as the ES modules it is made of were; their `import.meta.url` is the bundle's URL.
    define: { 'import.meta.url': 'tmsSyncBundleUrl' },
    banner: {
      js: "'use strict';const tmsSyncBundleUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    // A command's modules are evaluated when it is run (src/cli/commands.ts imports each one
    // dynamically; esbuild wraps them to run at that import): `sync` never loads the worker's
    // packages.
    outdir: aside,
    outExtension: { '.js': '.cjs' },
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
    if (!existsSync(join(dir, 'tms-sync.cjs'))) throw error;
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
  for (const dir of sourceDirs) addFiles(join(root, dir), files);
  const hash = createHash('sha1');
  for (const file of files.sort()) {
    hash.update(`${relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The files under `dir`, walked by hand: Node 20's recursive `readdirSync` took 2-4 ms more. */
function addFiles(dir, files) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) addFiles(path, files);
    else if (entry.isFile()) files.push(path);
  }
}

async function fromSource() {
  const { register } = await import('tsx/esm/api');
  register();
  return pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href;
}

/**
 * Runs the bundle as Node runs a CommonJS file, but compiled with V8's code cache of this command
 * (one per command: each compiles different code). Compiling the bundle and the functions a run
 * calls was ~45 ms of every start (BENCHMARKS.md, "What moved the figures"). A run without a usable
 * cache (the first after a build, or one with other V8 flags: V8 rejects a cache made under
 * other flags or another V8) writes one when it ends successfully, holding everything it compiled.
 */
function runBundle(bundle) {
  const cacheFile = join(dirname(bundle), `${cacheName(process.argv.slice(2))}.code-cache`);
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const source = readFileSync(bundle, 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData,
    // The bundle imports no ES module in a run; should one ever be imported, Node's loader does it.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if ((cachedData === undefined || script.cachedDataRejected) && writable(dirname(bundle))) {
    process.once('exit', (code) => {
      if (code === 0) writeCodeCache(cacheFile, script);
    });
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
}

/** The command a command line runs (its first argument that is not an option, as src/cli/commands.ts), `-help` added for its help. */
function cacheName(args) {
  const named = args.find((arg) => !arg.startsWith('-')) ?? '';
  const help = args.some((arg) => arg === '-h' || arg === '--help') ? '-help' : '';
  return `${/^[a-z][a-z-]{0,40}$/.test(named) ? named : 'tms-sync'}${help}`;
}

/** A build made by another user (an image's build step) may be read-only to this one: no cache to make. */
function writable(dir) {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Written aside and renamed into place: a process never reads half a cache. A failure costs only the cache. */
function writeCodeCache(file, script) {
  const aside = `${file}.${process.pid}`;
  try {
    writeFileSync(aside, script.createCachedData());
    renameSync(aside, file);
  } catch {
    rmSync(aside, { force: true });
  }
}

const bundle = process.env.TMS_SYNC_TSX === '1' ? undefined : await freshBundle();
if (bundle === undefined) await import(await fromSource());
else runBundle(bundle);
