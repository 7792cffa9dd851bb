// npm run build: the CLI (dist/tms-sync.js, a chunk per command) and the SQLite thread's module
// (dist/sqlite-thread.js), bundled with esbuild as ES modules with source maps. Types are checked
// by `npm run typecheck` (tsc), not here. It takes about a second, so the tests build before every
// run and never meet a stale dist/ (test/support/build-dist.ts).
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist');

/**
 * Packages bundled in: each is hundreds of small modules that a start would resolve and compile
 * one by one (~0.25 s together; BENCHMARKS.md, "2026-11-26 (build step)"), and none reads the
 * network. Every other package is loaded from node_modules as installed: undici (the HTTP client,
 * whose security fixes an `npm update` must reach), native addons, the servers' packages, and
 * BullMQ and ioredis (BullMQ through `require`: jobs/bullmq.ts).
 */
const bundled = ['kysely', '@sinclair/typebox', 'commander', 'p-map', 'p-retry', 'pino', 'jsonc-parser'];

const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path, importer }) => {
      // A bundled package's own imports are bundled with it (an importer in node_modules is one).
      const inline =
        bundled.some((name) => path === name || path.startsWith(`${name}/`)) ||
        importer.includes('/node_modules/');
      return inline ? undefined : { path, external: true };
    });
  },
};

const result = await build({
  entryPoints: {
    'tms-sync': join(root, 'bin', 'tms-sync.ts'),
    'sqlite-thread': join(root, 'src', 'store', 'sqlite', 'sqlite-thread-worker.ts'),
  },
  outdir,
  bundle: true,
  // A command's modules (src/cli/commands.ts imports each one when it is run) are chunks of their
  // own, with the packages they import: `sync` never loads the worker's. Chunks sit beside the
  // entries, so every module finds dist/sqlite-thread.js as `./sqlite-thread.js`.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow; its `module` an ES one.
  mainFields: ['module', 'main'],
  plugins: [externalPackages],
  // The CommonJS packages bundled in (pino, commander) require Node's built-in modules.
  banner: {
    js: "import { createRequire as tmsSyncRequire } from 'node:module'; const require = tmsSyncRequire(import.meta.url);",
  },
  // A third less for V8 to parse at every start; names are kept, so stack traces still name
  // their functions (and the source maps give the sources' lines).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
  write: false,
});

// Only what changed is written, and what an older build left and this one did not make is
// removed: a process running from dist/ (a test, a benchmark, a worker) keeps finding its chunks,
// which are named by their content, while the tests build again.
mkdirSync(outdir, { recursive: true });
const made = new Set();
for (const file of result.outputFiles) {
  made.add(file.path);
  if (!existsSync(file.path) || !readFileSync(file.path).equals(file.contents))
    writeFileSync(file.path, file.contents);
}
// The command is run by path too (`./dist/tms-sync.js`, npm's bin link).
chmodSync(join(outdir, 'tms-sync.js'), 0o755);
for (const name of readdirSync(outdir)) {
  if (!made.has(join(outdir, name))) rmSync(join(outdir, name), { recursive: true, force: true });
}
