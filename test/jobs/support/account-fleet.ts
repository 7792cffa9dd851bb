import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The environment of a worker of every connection over a tms-sim of several accounts: the default
 * connection is account 1, `others[i]` is account i + 2 (its token from `<NAME>_TOKEN`); invoices
 * only, into SQLite files of `dir`, every partition every second, pages of 20.
 */
export function accountFleetEnv(options: {
  readonly dir: string;
  readonly simUrl: string;
  readonly others: readonly string[];
  readonly queuePrefix: string;
}): NodeJS.ProcessEnv {
  const tokenVariable = (name: string) => `${name.toUpperCase()}_TOKEN`;
  const config = join(options.dir, 'tms-sync.jsonc');
  writeFileSync(
    config,
    JSON.stringify({
      storeUrl: `sqlite:${join(options.dir, 'tms.sqlite')}`,
      streams: { include: ['invoices'] },
      schedule: { everySeconds: 1 },
      reconcileSchedule: false,
      sync: { pageLimit: 20 },
      connections: Object.fromEntries(
        options.others.map((name) => [name, { apiToken: `env:${tokenVariable(name)}` }]),
      ),
    }),
  );
  return {
    TMS_SYNC_CONFIG: config,
    TMS_BASE_URL: options.simUrl,
    TMS_API_TOKEN: 'dev-api-token-1',
    ...Object.fromEntries(options.others.map((name, i) => [tokenVariable(name), `dev-api-token-${i + 2}`])),
    QUEUE_PREFIX: options.queuePrefix,
  };
}
