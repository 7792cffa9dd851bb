import { readFileSync } from 'node:fs';
import { Errors, ValueErrorType } from '@sinclair/typebox/errors';
import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { SettingsError } from './settings-error.js';
import { SettingsFile } from './settings-file.js';
import { tmsVariables } from './tms-settings.js';
import { workerVariables } from './worker-settings.js';

/** The environment variables of the top-level settings, by the key they set (load-settings.ts reads them). */
export const topLevelVariables = {
  TMS_BASE_URL: 'baseUrl',
  TMS_API_TOKEN: 'apiToken',
  TMS_LOGIN_PATH: 'loginPath',
  TMS_DRIVER_TOKEN: 'driverToken',
  TMS_OPERATORS: 'operators',
  TMS_SEQUENCE_FIELD: 'sequenceField',
  STORE_URL: 'storeUrl',
  REDIS_URL: 'redisUrl',
  OPS_HOST: 'opsHost',
  OPS_PORT: 'opsPort',
  LOG_LEVEL: 'logLevel',
} as const;

/** Each environment variable with the file key that sets the same (dotted below a group). */
const fileKeyOfVariable: Readonly<Record<string, string>> = {
  ...topLevelVariables,
  ...Object.fromEntries(Object.entries(workerVariables).map(([name, key]) => [name, `worker.${key}`])),
  ...Object.fromEntries(Object.entries(tmsVariables).map(([name, key]) => [name, `tms.${key}`])),
};

/**
 * Reads the config file named by TMS_SYNC_CONFIG: JSON with comments (JSONC: `//` and `/* *\/`
 * comments and trailing commas are allowed, so the commented example config/tms-sync.example.jsonc
 * can be copied as it is). Checked against the file's schema; a wrong key or value throws a
 * SettingsError naming the file, the key and the fix (an environment-style key gets its camelCase
 * name).
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
  // Read from the schema itself, as a compiled check's `Errors` does too: compiling one cost
  // every start ~4 ms in a CPU profile, config file or not.
  const first = Errors(SettingsFile, parsed).First();
  if (!first) return parsed as SettingsFile;
  if (first.type === ValueErrorType.ObjectAdditionalProperties) {
    throw new SettingsError(`${path}${first.path}`, unknownKeyHint(first.path));
  }
  throw new SettingsError(`${path}${first.path || '/'}`, first.message);
}

/** Why a key is unknown, and the key meant when it can tell (`TMS_BASE_URL`, `sync_page_limit`). */
function unknownKeyHint(pointer: string): string {
  const key = pointer.split('/').at(-1) ?? '';
  const camelCase = "the file's keys are camelCase (config/tms-sync.example.jsonc lists them)";
  const variable = fileKeyOfVariable[key];
  if (variable) return `unknown key; ${camelCase}: the file sets ${key} as "${variable}"`;
  const meant = knownKeys().find((known) => loose(known) === loose(key) || loose(leaf(known)) === loose(key));
  if (meant) return `unknown key; ${camelCase}: did you mean "${meant}"?`;
  return `unknown key; ${camelCase}`;
}

/** Every key of the file's schema, dotted below its group (`sync.pageLimit`). */
function knownKeys(): string[] {
  const keys: string[] = [];
  const walk = (schema: { properties?: Record<string, unknown> }, prefix: string) => {
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      keys.push(`${prefix}${name}`);
      walk(child as { properties?: Record<string, unknown> }, `${prefix}${name}.`);
    }
  };
  walk(SettingsFile, '');
  return keys;
}

const loose = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');
const leaf = (key: string) => key.split('.').at(-1) ?? key;

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}
