import type { Command } from 'commander';
import { resolveFaultRates } from '../sim/fault-profiles.js';
import {
  defaultSimOptions,
  resolveSimOptions,
  SimOptionsError,
  type SimOptionsInput,
} from '../sim/resolve-sim-options.js';
import { startSim } from '../sim/start-sim.js';

/** CLI flag of each simulator option, so a bad value is reported under the flag the user typed. */
const flagOf: Record<string, string> = {
  seed: '--seed',
  invoices: '--invoices',
  clients: '--clients',
  operators: '--operators',
  rideDays: '--ride-days',
  accounts: '--accounts',
  faults: '--faults',
  apiToken: '--api-token',
  adminToken: '--admin-token',
  tokenTtlSeconds: '--token-ttl',
  rateLimitPerSecond: '--rate-limit',
  'variant.errorBody': '--error-body',
  'variant.singleEnvelope': '--single-envelope',
  'variant.tokenFormat': '--token-format',
  'variant.sequenceField': '--sequence-field',
  'variant.idStyle': '--id-style',
  'variant.recordShapes': '--record-shapes',
  'variant.recordShapesSeed': '--record-shapes-seed',
};

class FlagError extends Error {}

interface RawFlags {
  port: string;
  host: string;
  [name: string]: string | boolean | undefined;
}

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description('Run tms-sim, the simulator of the TMS API, as a server (docs/simulator.md).')
    .option('--port <n>', 'port to listen on (0: any free port)', '4010')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--seed <n>', 'seed of the generated data and every random choice')
    .option('--invoices <n>', 'invoices in the initial data set')
    .option('--clients <n>', 'clients in the initial data set')
    .option('--operators <n>', 'operators with Driver API data')
    .option('--ride-days <n>', 'days of rides per operator (1: today only, for fleets of thousands)')
    .option('--accounts <n>', 'TMS accounts served, each its own data and API token <api-token>-<i>')
    .option('--faults <name>', 'fault profile: none, flaky, hostile, slow, throttled, harsh, lossy')
    .option(
      '--lost-responses <rate>',
      'share of requests (0-1) applied and then answered by a reset or a 502, on top of the profile',
    )
    .option('--api-token <token>', 'API token the login operation accepts')
    .option('--admin-token <token>', 'value of the x-sim-admin header of the admin routes')
    .option('--token-ttl <seconds>', 'lifetime of access tokens')
    .option('--rate-limit <n>', 'requests per second per token before 429 (0: unlimited)')
    .option('--error-body <shape>', 'error body: json, flat, text')
    .option('--single-envelope <shape>', 'single-resource envelope: data, items')
    .option('--cursor-on-last-page', 'also put a nextCursor on the last page')
    .option('--token-format <format>', 'access tokens: jwt, opaque')
    .option('--sequence-field <name>', 'name of the sequence field in records')
    .option('--id-style <style>', 'ids: plain, unsafe, dots')
    .option('--large-sequences', 'start sequences just below 2^53')
    .option('--record-shapes <shapes>', "record shapes: default (tms-sim's own), alt (another TMS's), random")
    .option('--record-shapes-seed <n>', 'seed of the random record shapes')
    .action(async (flags: RawFlags) => {
      try {
        await runSim(flags);
      } catch (error) {
        if (!(error instanceof FlagError || error instanceof SimOptionsError)) throw error;
        const message =
          error instanceof SimOptionsError
            ? `${flagOf[error.option] ?? error.option} ${error.problem}`
            : error.message;
        process.stderr.write(`tms-sync sim: ${message}\n`);
        process.exitCode = 2;
      }
    });
}

async function runSim(flags: RawFlags): Promise<void> {
  const port = integerFlag('--port', flags.port)!;
  if (port > 65535) throw new FlagError('--port must be from 0 to 65535');
  const options = resolveSimOptions(simOptionsFrom(flags));
  const sim = await startSim({ ...options, host: flags.host, port });
  // Listen for the signals before the banner goes out: whoever reads it may stop us at once.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write(banner(sim.url, flags.host, options));
  await stopped;
  await sim.close();
  process.stdout.write('tms-sim stopped\n');
}

function simOptionsFrom(flags: RawFlags): SimOptionsInput {
  const text = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
  return {
    seed: integerFlag('--seed', text('seed')),
    invoices: integerFlag('--invoices', text('invoices')),
    clients: integerFlag('--clients', text('clients')),
    operators: integerFlag('--operators', text('operators')),
    rideDays: integerFlag('--ride-days', text('rideDays')),
    accounts: integerFlag('--accounts', text('accounts')),
    faults: faultsFrom(text('faults'), numberFlag('--lost-responses', text('lostResponses'))),
    apiToken: text('apiToken'),
    adminToken: text('adminToken'),
    tokenTtlSeconds: integerFlag('--token-ttl', text('tokenTtl')),
    rateLimitPerSecond: numberFlag('--rate-limit', text('rateLimit')),
    variant: {
      errorBody: text('errorBody') as never,
      singleEnvelope: text('singleEnvelope') as never,
      cursorOnLastPage: flags.cursorOnLastPage === true ? true : undefined,
      tokenFormat: text('tokenFormat') as never,
      sequenceField: text('sequenceField'),
      idStyle: text('idStyle') as never,
      largeSequences: flags.largeSequences === true ? true : undefined,
      recordShapes: text('recordShapes') as never,
      recordShapesSeed: integerFlag('--record-shapes-seed', text('recordShapesSeed')),
    },
  };
}

/** The profile, with the rate of lost answers laid over it when `--lost-responses` is given. */
function faultsFrom(
  profile: string | undefined,
  lostResponse: number | undefined,
): SimOptionsInput['faults'] {
  if (lostResponse === undefined) return profile as SimOptionsInput['faults'];
  if (lostResponse < 0 || lostResponse > 1) throw new FlagError('--lost-responses must be from 0 to 1');
  const rates = resolveFaultRates(profile ?? 'none');
  if (typeof rates === 'string') throw new FlagError(`--faults: ${rates}`);
  return { ...rates, lostResponse };
}

function integerFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value.replaceAll('_', '')))
    throw new FlagError(`${flag} must be a non-negative integer (got "${value}")`);
  return Number(value.replaceAll('_', ''));
}

function numberFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number))
    throw new FlagError(`${flag} must be a number (got "${value}")`);
  return number;
}

function banner(url: string, host: string, options: ReturnType<typeof resolveSimOptions>): string {
  const faults = typeof options.faults === 'string' ? options.faults : 'custom';
  return [
    `tms-sim listening on ${url} (seed ${options.seed}, ${options.invoices} invoices, ${options.clients} clients, ${options.operators} operators, faults ${faults}${options.accounts > 1 ? `; each of ${options.accounts} accounts` : ''})`,
    options.accounts > 1
      ? `${options.accounts} accounts: API tokens ${options.apiToken}-1 ... ${options.apiToken}-${options.accounts}; admin routes take the header x-sim-account: <1..${options.accounts}>`
      : '',
    host === '0.0.0.0' ? 'warning: listening on every interface; the tokens are development tokens' : '',
    '',
    'Get an access token:',
    `  TOKEN=$(curl -s -X POST ${url}${options.loginPath} -H 'content-type: application/json' \\`,
    `    -d '{"apiToken":"${shown(options.apiToken, defaultSimOptions.apiToken)}${options.accounts > 1 ? '-1' : ''}"}' | sed -E 's/.*"access":"([^"]+)".*/\\1/')`,
    'Page through the invoices (pass data.nextCursor as cursor until hasMore is false):',
    `  curl -s '${url}/invoice/invoices/?since=1&limit=2' -H "Authorization: Bearer $TOKEN"`,
    `Admin routes (header x-sim-admin: ${shown(options.adminToken, defaultSimOptions.adminToken)}): POST /_sim/changes, PUT /_sim/faults, GET /_sim/truth, POST /_sim/tokens, PUT /_sim/api-token`,
    'Stop with Ctrl-C. Walkthrough: docs/simulator.md',
    '',
  ]
    .filter((line, index) => line !== '' || index > 2)
    .join('\n');
}

/** Tokens the user chose are secrets: the banner names them only when they are the public defaults. */
function shown(token: string, publicDefault: string): string {
  return token === publicDefault ? token : '<your token>';
}
