import type { Command } from 'commander';

/** Registers one sub-command on the program. */
export type RegisterCommand = (program: Command) => void;

/**
 * The CLI's catalogue, in help order. Each command's module is loaded only when needed: `sync`
 * must not pay for BullMQ, fastify, bull-board or prom-client, which only `worker` and its
 * neighbours use (each command is a chunk of its own in the build, scripts/build.mjs).
 */
const catalogue: Record<string, () => Promise<RegisterCommand>> = {
  demo: async () => (await import('./demo-command.js')).registerDemoCommand,
  check: async () => (await import('./check-command.js')).registerCheckCommand,
  streams: async () => (await import('./streams-command.js')).registerStreamsCommand,
  sync: async () => (await import('./sync-command.js')).registerSyncCommand,
  worker: async () => (await import('./worker-command.js')).registerWorkerCommand,
  trigger: async () => (await import('./trigger-command.js')).registerTriggerCommand,
  status: async () => (await import('./status-command.js')).registerStatusCommand,
  runs: async () => (await import('./runs-command.js')).registerRunsCommand,
  schema: async () => (await import('./schema-command.js')).registerSchemaCommand,
  history: async () => (await import('./history-command.js')).registerHistoryCommand,
  'approve-deletes': async () => (await import('./approve-deletes-command.js')).registerApproveDeletesCommand,
  reset: async () => (await import('./reset-command.js')).registerResetCommand,
  migrate: async () => (await import('./migrate-command.js')).registerMigrateCommand,
  connections: async () => (await import('./connections-command.js')).registerConnectionsCommand,
  sim: async () => (await import('./sim-command.js')).registerSimCommand,
  verify: async () => (await import('./verify-command.js')).registerVerifyCommand,
  // Write-back (docs/write-back.md)
  command: async () => (await import('./write-back-command.js')).registerCommandCommand,
  push: async () => (await import('./push-command.js')).registerPushCommand,
  commands: async () => (await import('./write-back-list-command.js')).registerCommandsCommand,
};

/**
 * The commands a command line needs: the one it names (the first argument that is not an option:
 * the program's own options take no value), none for a bare `--version`, every one otherwise (the
 * help lists them all, and an unknown name is answered with the list).
 */
export async function commandsFor(args: readonly string[]): Promise<RegisterCommand[]> {
  const named = args.find((arg) => !arg.startsWith('-'));
  if (named !== undefined && Object.hasOwn(catalogue, named)) return [await catalogue[named]!()];
  const versionOnly =
    named === undefined && args.length > 0 && args.every((arg) => arg === '-V' || arg === '--version');
  if (versionOnly) return [];
  return Promise.all(Object.values(catalogue).map((load) => load()));
}
