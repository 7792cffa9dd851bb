import { createServer } from 'node:http';
import { createSimServer } from '../create-sim-server.js';
import type { SimOptions } from '../sim-options.js';
import { accountOptions } from './account-options.js';
import { createAccountRouter } from './account-router.js';

/**
 * Serves `options.accounts` TMS accounts from one port: each account its own simulator app
 * (accountOptions), one HTTP server in front picking the account of every request
 * (account-router.ts). Resolves once listening, with the port bound and a close.
 */
export async function startAccounts(
  options: SimOptions,
  host: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const accounts = await Promise.all(
    Array.from({ length: options.accounts }, async (_, i) => {
      const { app, apiToken } = createSimServer(accountOptions(options, i + 1));
      await app.ready();
      return { app, apiToken };
    }),
  );
  const router = createAccountRouter(options, accounts);
  const server = createServer((request, response) => router.route(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(accounts.map((account) => account.app.close()));
    },
  };
}
