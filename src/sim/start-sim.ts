import { startAccounts } from './accounts/start-accounts.js';
import { createSimServer } from './create-sim-server.js';
import { resolveSimOptions, type SimOptionsInput } from './resolve-sim-options.js';
import type { SimOptions } from './sim-options.js';

export interface SimHandle {
  /** Base URL, e.g. `http://127.0.0.1:54321` (no trailing slash). */
  readonly url: string;
  readonly options: SimOptions;
  /** Stops listening and drops open connections (stalled answers included). */
  close(): Promise<void>;
}

export type StartSimOptions = SimOptionsInput & {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
};

/** Starts a simulator on a free local port: what tests of the client and the sync engine call. */
export async function startSim(options: StartSimOptions = {}): Promise<SimHandle> {
  const { host = '127.0.0.1', port = 0, ...simOptions } = options;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const resolved = resolveSimOptions(simOptions);
  if (resolved.accounts > 1) {
    const served = await startAccounts(resolved, host, port);
    return { url: `http://${urlHost}:${served.port}`, options: resolved, close: () => served.close() };
  }
  const { app } = createSimServer(resolved);
  await app.listen({ host, port });
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  return { url: `http://${urlHost}:${boundPort}`, options: resolved, close: () => app.close() };
}
