import type { Command } from 'commander';
import { registerSimCommand } from './sim-command.js';

/** Every sub-command registers itself on the program; this list is the CLI's catalogue. */
export const commands: Array<(program: Command) => void> = [registerSimCommand];
