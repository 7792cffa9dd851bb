import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One instruction of a Dockerfile: its keyword and its arguments, continuation lines joined. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

export const root = join(import.meta.dirname, '..', '..');

/** The Dockerfile's stages, each the instructions from its FROM on. */
export function dockerfileStages(path = join(root, 'Dockerfile')): Instruction[][] {
  const lines = readFileSync(path, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: Instruction[][] = [];
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args };
    if (instruction.keyword === 'FROM') stages.push([instruction]);
    else stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** The exec-form (JSON array) argument of an instruction, e.g. ENTRYPOINT ["node", "dist/tms-sync.js"]. */
export function execForm(args: string): string[] {
  return JSON.parse(args.replace(/^CMD\s+/, '')) as string[];
}

/** The variables an `ENV A=1 B=2` instruction sets. */
export function envOf(args: string): Record<string, string> {
  return Object.fromEntries(args.split(/\s+/).map((pair) => pair.split('=', 2) as [string, string]));
}
