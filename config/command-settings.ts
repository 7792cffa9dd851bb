import { checkIntegers, type IntegerSettingTable, integersFromEnvironment } from './integer-settings.js';

/** How write-back commands are delivered (docs/write-back.md); env var names in brackets. */
export interface CommandSettings {
  /** Commands delivered at once per process, each on its own target [COMMANDS_CONCURRENCY]. @default 4 */
  readonly concurrency: number;
  /**
   * Deliveries of one command before it is given up: `failed`, or `needs_review` when an attempt may
   * have been applied. A TMS that cannot be reached or refuses the token costs no attempt [COMMANDS_MAX_ATTEMPTS]. @default 10
   */
  readonly maxAttempts: number;
  /**
   * The lease of a command in delivery [COMMANDS_LEASE_MS]: renewed while the deliverer lives; a
   * killed deliverer's command is taken over this long after its last renewal. A deliverer stops
   * sending once half of it passed without a renewal. @default 60000
   */
  readonly leaseMs: number;
  /** The wait before a command is tried again; doubled per attempt, up to 64 times [COMMANDS_RETRY_MS]. @default 2000 */
  readonly retryMs: number;
  /** How often the worker asks the outboxes whether a delivery pass has work [COMMANDS_EVERY_MS]. @default 2000 */
  readonly everyMs: number;
}

export const defaultCommandSettings: CommandSettings = Object.freeze({
  concurrency: 4,
  maxAttempts: 10,
  leaseMs: 60_000,
  retryMs: 2000,
  everyMs: 2000,
});

const integers = {
  COMMANDS_CONCURRENCY: ['concurrency', 1, 256],
  COMMANDS_MAX_ATTEMPTS: ['maxAttempts', 1, 1000],
  COMMANDS_LEASE_MS: ['leaseMs', 1000, 3_600_000],
  COMMANDS_RETRY_MS: ['retryMs', 1, 3_600_000],
  COMMANDS_EVERY_MS: ['everyMs', 100, 3_600_000],
} as const satisfies IntegerSettingTable<CommandSettings>;

export const commandsFromEnvironment = (env: NodeJS.ProcessEnv): Partial<CommandSettings> =>
  integersFromEnvironment<CommandSettings>(env, integers);

export const checkCommandSettings = (settings: CommandSettings): void => checkIntegers(settings, integers);
