import { readFileSync } from 'node:fs';
import { Errors } from '@sinclair/typebox/errors';
import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { SettingsError } from './settings-error.js';
import { SettingsFile } from './settings-file.js';
import { checkUnknownKeys } from './unknown-keys.js';

/**
 * Reads the config file named by TMS_SYNC_CONFIG: JSON with comments (JSONC: `//` and `/* *\/`
 * comments and trailing commas are allowed, so the commented example config/tms-sync.example.jsonc
 * can be copied as it is). Checked against the file's schema; a wrong key or value throws a
 * SettingsError naming the file, the key and the fix (unknown-keys.ts: an unknown key, at any
 * depth, with the key meant).
 */
export function readSettingsFile(path: string): SettingsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SettingsError('TMS_SYNC_CONFIG', `cannot read ${path}: ${(error as Error).message}`);
  }
  const errors: ParseError[] = [];
  const parsed: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const { error, offset } = errors[0]!;
    throw new SettingsError(
      'TMS_SYNC_CONFIG',
      `${path} is not JSON (${printParseErrorCode(error)} at ${lineAndColumn(text, offset)})`,
    );
  }
  checkUnknownKeys(path, parsed);
  // Read from the schema itself, as a compiled check's `Errors` does too: compiling one cost
  // every start ~4 ms in a CPU profile, config file or not.
  const first = Errors(SettingsFile, parsed).First();
  if (!first) return parsed as SettingsFile;
  throw new SettingsError(`${path}${first.path || '/'}`, first.message);
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}
