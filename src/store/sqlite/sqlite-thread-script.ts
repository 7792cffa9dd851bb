import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** How to start the SQLite thread: a module file, or (from the sources) its code bundled in memory. */
export type ThreadScript = { readonly file: URL } | { readonly code: string };

let inMemory: string | undefined;

/**
 * bin/tms-sync.js bundles the thread's module (sqlite-thread-worker.ts) beside the CLI's bundle,
 * as `sqlite-thread.cjs`: a bundle finds it next to itself. Run from the sources (tsx, vitest),
 * no such file sits beside this module and a worker cannot load TypeScript, so the module is
 * bundled once per process with esbuild into code the worker evaluates.
 */
export async function threadScript(): Promise<ThreadScript> {
  const beside = new URL('./sqlite-thread.cjs', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return { file: beside };
  if (inMemory === undefined) {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [fileURLToPath(new URL('./sqlite-thread-worker.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      packages: 'external',
      write: false,
      logLevel: 'warning',
    });
    inMemory = result.outputFiles[0]!.text;
  }
  return { code: inMemory };
}
