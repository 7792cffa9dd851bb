import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The SQLite thread's module (sqlite-thread-worker.ts) as built: a worker thread runs JavaScript,
 * never TypeScript. `npm run build` writes it beside the CLI's, as dist/sqlite-thread.js. Run from
 * the sources (vitest), this module is src/store/sqlite/sqlite-thread-script.ts and the thread is
 * the build of the same tree, which the tests make before they run (vitest.config.ts).
 */
export function threadScript(): URL {
  const built = import.meta.url.endsWith('.ts')
    ? new URL('../../../dist/sqlite-thread.js', import.meta.url)
    : new URL('./sqlite-thread.js', import.meta.url);
  if (!existsSync(fileURLToPath(built)))
    throw new Error(`the SQLite thread's module ${fileURLToPath(built)} is missing: run npm run build`);
  return built;
}
