import type { Command } from 'commander';
import { registerApproveDeletesCommand } from './approve-deletes-command.js';
import { registerDemoCommand } from './demo-command.js';
import { registerMigrateCommand } from './migrate-command.js';
import { registerResetCommand } from './reset-command.js';
import { registerSchemaCommand } from './schema-command.js';
import { registerSimCommand } from './sim-command.js';
import { registerStatusCommand } from './status-command.js';
import { registerSyncCommand } from './sync-command.js';
import { registerTriggerCommand } from './trigger-command.js';
import { registerVerifyCommand } from './verify-command.js';
import { registerWorkerCommand } from './worker-command.js';

/** Every sub-command registers itself on the program; this list is the CLI's catalogue. */
export const commands: Array<(program: Command) => void> = [
  registerDemoCommand,
  registerSyncCommand,
  registerWorkerCommand,
  registerTriggerCommand,
  registerStatusCommand,
  registerSchemaCommand,
  registerApproveDeletesCommand,
  registerResetCommand,
  registerMigrateCommand,
  registerSimCommand,
  registerVerifyCommand,
];
