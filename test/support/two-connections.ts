import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a test of two connections runs: a simulator of two accounts, and the default's store. */
export interface TwoConnections {
  /** A directory of the test's own: each setup gets a folder in it. */
  readonly dir: string;
  readonly simUrl: string;
  readonly storeUrl: string;
  readonly streams: readonly string[];
}

/**
 * The environment of a config file with the default connection (account 1) and "beta" (account
 * 2, its token from BETA_TOKEN), syncing `streams`.
 */
export function twoConnectionsEnv(setup: TwoConnections): NodeJS.ProcessEnv {
  const config = join(mkdtempSync(join(setup.dir, 'setup-')), 'tms-sync.jsonc');
  writeFileSync(
    config,
    JSON.stringify({
      storeUrl: setup.storeUrl,
      streams: { include: setup.streams },
      connections: { beta: { apiToken: 'env:BETA_TOKEN' } },
    }),
  );
  return {
    TMS_SYNC_CONFIG: config,
    TMS_BASE_URL: setup.simUrl,
    TMS_API_TOKEN: 'dev-api-token-1',
    BETA_TOKEN: 'dev-api-token-2',
    LOG_LEVEL: 'silent',
  };
}
