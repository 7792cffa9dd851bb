import { readFileSync } from 'node:fs';
import type { Command as Program } from 'commander';
import { isJsonObject } from '../../schemas/json-object.js';
import type { CommandInput } from '../store/outbox/command.js';
import { splitFields } from '../store/outbox/command-rows.js';
import { checkCommand } from '../write-back/admit-command.js';
import { unshownFields } from '../write-back/body-fields.js';
import { commandKindNames, commandKinds, isCommandKind, kindOf } from '../write-back/command-kinds.js';
import { unknownTargets } from '../write-back/unknown-targets.js';
import { runCommand, UsageError } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { withCliStore } from './with-cli-store.js';

interface AddFlags extends ConnectionFlag {
  body?: string;
  match?: string;
  file?: string;
  allowUnknownTarget?: boolean;
}

interface ResolveFlags extends ConnectionFlag {
  createdId?: string;
  note?: string;
}

const resolutions = { done: 'done', failed: 'failed', retry: 'pending' } as const;

/** `tms-sync command add|resolve`: put commands in the outbox, decide on one that needs review. */
export function registerCommandCommand(program: Program): void {
  const command = program
    .command('command')
    .description('Add write-back commands to the outbox, or resolve one (docs/write-back.md).');
  command
    .command('add')
    .description(
      'Add a command (or every command of a JSON file); `tms-sync push` or the worker delivers it.',
    )
    .argument('[kind]', `one of ${commandKindNames.join(', ')}`)
    .argument('[target]', 'the invoice or client id (none for create_client)')
    .option('--body <json>', 'the body, a JSON object')
    .option('--match <fields>', "comma-separated body fields that identify a create's record (its match key)")
    .option('--file <path>', 'a JSON array of {kind, target, body, match} instead of the arguments')
    .option(
      '--allow-unknown-target',
      'add it even when the mirror does not hold the target invoice or client (one the TMS made since the last sync)',
    )
    .addHelpText(
      'after',
      `\nKinds:\n${commandKindNames.map((kind) => `  ${kind.padEnd(20)} ${commandKinds[kind].description}`).join('\n')}\n\nChecked before anything is added: the kind, the target, the body (a payment's amount a number, its date\na calendar date YYYY-MM-DD), the match key, and that the mirror holds the target (unless the stream was\nnever synced here, or --allow-unknown-target). Nothing is added when one command is refused (exit 2).\n`,
    )
    .addOption(connectionOption())
    .action((kind: string | undefined, target: string | undefined, flags: AddFlags) =>
      runCommand('command add', async () => {
        const inputs = flags.file ? readCommandFile(flags.file, kind) : [fromArguments(kind, target, flags)];
        inputs.forEach((input, index) => {
          const verdict = checkCommand(input, 0);
          const where = flags.file ? `${flags.file}[${index}]: ` : '';
          if (!verdict.ok) throw new UsageError(`${where}${verdict.problem}`);
          for (const note of unshownFieldNotes(input)) process.stderr.write(`note: ${where}${note}\n`);
        });
        const ids = await withCliStore(flags.connection, async (store) => {
          const unknown = flags.allowUnknownTarget ? undefined : await unknownTargets(store, inputs);
          if (unknown) throw new UsageError(unknown);
          return store.commands.add(inputs);
        });
        const list =
          ids.length === 1 ? `command ${ids[0]}` : `${ids.length} commands (${ids[0]}-${ids.at(-1)})`;
        process.stdout.write(
          `added ${list}; tms-sync push (or the worker) delivers ${ids.length === 1 ? 'it' : 'them'}\n`,
        );
        return 0;
      }),
    );
  command
    .command('resolve')
    .description(
      'Decide on a command that needs review (or failed): done (it exists upstream), failed, or retry (deliver it again, as new).',
    )
    .argument('<id>', 'the command id')
    .argument('<decision>', 'done, failed or retry')
    .option('--created-id <id>', 'done: the id of the record upstream')
    .option('--note <text>', 'why (kept as its last error)')
    .addOption(connectionOption())
    .action((id: string, decision: string, flags: ResolveFlags) =>
      runCommand('command resolve', async () => {
        if (!Object.hasOwn(resolutions, decision))
          throw new UsageError(`decision must be done, failed or retry, got "${decision}"`);
        const to = resolutions[decision as keyof typeof resolutions];
        const note = flags.note ?? `resolved by hand: ${decision}`;
        const resolved = await withCliStore(flags.connection, (store) =>
          store.commands.resolve(Number(id), to, note, flags.createdId),
        );
        if (!resolved) throw new UsageError(`no command ${id} that needs review or failed`);
        process.stdout.write(`command ${id}: ${resolved.status}\n`);
        return 0;
      }),
    );
}

/** Body fields docs/api.md does not show for a kind whose whole body it shows: sent, for the TMS to judge. */
function unshownFieldNotes(input: CommandInput): string[] {
  if (!isCommandKind(input.kind) || !isJsonObject(input.body)) return [];
  const kind = kindOf(input.kind);
  if (!kind.complete || !kind.fields) return [];
  const fields = unshownFields(kind.fields, input.body);
  if (fields.length === 0) return [];
  return [
    `${input.kind}: the spec shows no body field ${fields.map((field) => `"${field}"`).join(', ')}: sent as it is; your TMS may refuse it (tms-sim does, 422)`,
  ];
}

function fromArguments(kind: string | undefined, target: string | undefined, flags: AddFlags): CommandInput {
  if (!kind) throw new UsageError('name the kind (or give --file)');
  return {
    kind,
    target: target ?? null,
    body: parseBody(flags.body),
    match: flags.match ? splitFields(flags.match) : null,
  };
}

function parseBody(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--body is not valid JSON: ${(error as Error).message}`);
  }
}

function readCommandFile(path: string, kind: string | undefined): CommandInput[] {
  if (kind) throw new UsageError('give either --file or a kind, not both');
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0)
    throw new UsageError(`${path}: expected a JSON array of commands`);
  return parsed.map((entry, index) => commandOfEntry(entry, `${path}[${index}]`));
}

function commandOfEntry(entry: unknown, where: string): CommandInput {
  if (!isJsonObject(entry) || typeof entry.kind !== 'string')
    throw new UsageError(`${where}: expected an object with a "kind"`);
  const { target, match } = entry;
  if (target !== undefined && target !== null && typeof target !== 'string' && typeof target !== 'number')
    throw new UsageError(`${where}: "target" must be a string`);
  const fields = typeof match === 'string' ? splitFields(match) : match;
  if (fields != null && !(Array.isArray(fields) && fields.every((field) => typeof field === 'string')))
    throw new UsageError(`${where}: "match" must be an array of field names`);
  return {
    kind: entry.kind,
    target: target == null ? null : String(target),
    body: entry.body,
    match: fields as string[] | null,
  };
}
