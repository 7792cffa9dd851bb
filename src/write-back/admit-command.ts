import { isJsonObject } from '../../schemas/json-object.js';
import { pathParamNames } from '../client/request-path.js';
import type { CommandInput } from '../store/outbox/command.js';
import { bodyFieldProblem } from './body-fields.js';
import { type CommandKindDefinition, commandKindNames, isCommandKind, kindOf } from './command-kinds.js';
import { isMatchValue, valueAt } from './lenient-match.js';

/** A command fit to deliver: its lane and its match key (null when it has none). */
export interface AdmittedCommand {
  readonly ok: true;
  readonly lane: string;
  readonly match: readonly string[] | null;
}

/** A command no TMS could take as it is; `problem` is one line naming what is wrong. */
export interface RefusedCommand {
  readonly ok: false;
  readonly problem: string;
}

/**
 * Checks a command before it is delivered (and when `command add` inserts it): a known kind, a
 * target where the kind needs one, a body that is a JSON object whose fields docs/api.md shows have
 * docs/api.md's types (a payment's amount a number, its date a calendar date), a match key the body
 * holds. The TMS's other rules stay the TMS's: it answers 400/422 for those.
 * The lane orders delivery: one command at a time per invoice or client, in id order; a new
 * client's lane is its match key, so identical creates never run at once.
 */
export function checkCommand(
  command: CommandInput & { readonly bodyProblem?: string | undefined },
  id: number,
): AdmittedCommand | RefusedCommand {
  const refuse = (problem: string): RefusedCommand => ({ ok: false, problem });
  if (!isCommandKind(command.kind))
    return refuse(`unknown kind "${command.kind}" (one of ${commandKindNames.join(', ')})`);
  const kind = kindOf(command.kind);
  if (command.bodyProblem) return refuse(`body ${command.bodyProblem}`);
  const target = command.target ?? '';
  if (kind.target !== 'none' && target.trim() === '')
    return refuse(`${command.kind} needs a target: the ${kind.target} id`);
  if (kind.target === 'none' && target !== '') return refuse(`${command.kind} takes no target`);
  const bodyProblem = checkBody(kind, command.body);
  if (bodyProblem) return refuse(bodyProblem);
  const match = command.match?.length ? command.match : null;
  if (match && !kind.create) return refuse(`a match key applies to creates only, not to ${command.kind}`);
  const key = match ?? kind.create?.defaultMatch ?? null;
  const missing = key?.find((field) => !isMatchValue(valueAt(command.body, field)));
  if (missing !== undefined)
    return refuse(`match field "${missing}" is not in the body (a string, number or boolean)`);
  const lane =
    kind.target === 'none'
      ? `new-${command.kind}:${key ? JSON.stringify(key.map((field) => valueAt(command.body, field))) : `#${id}`}`
      : `${kind.target}:${target}`;
  return { ok: true, lane, match: key };
}

function checkBody(kind: CommandKindDefinition, body: unknown): string | undefined {
  if (kind.body === 'none') {
    return body === undefined || body === null || isJsonObject(body)
      ? undefined
      : 'body must be empty or a JSON object';
  }
  if (!isJsonObject(body)) return `body must be a JSON object, got ${describe(body)}`;
  if (kind.fields) {
    const problem = bodyFieldProblem(kind.fields, body);
    if (problem) return problem;
  }
  if (kind.body === 'params') {
    const field = pathParamNames(kind.path).find(
      (name) =>
        name !== 'target' &&
        !(typeof body[name] === 'string' && body[name] !== '') &&
        typeof body[name] !== 'number',
    );
    if (field !== undefined) return `body needs "${field}" (a string)`;
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
