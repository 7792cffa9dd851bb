import { readFileSync } from 'node:fs';
import { SettingsError } from './settings-error.js';

/** The settings that hold a secret, each of which may instead name a file holding it (`<NAME>_FILE`). */
export const fileSecretVariables = [
  'TMS_API_TOKEN',
  'TMS_DRIVER_TOKEN',
  'OPS_DASHBOARD_TOKEN',
  'TMS_WEBHOOK_SECRET',
  'STORE_URL',
  'REDIS_URL',
  'TMS_CONNECTIONS_KEY',
] as const;

/**
 * The environment with every `<NAME>_FILE` of `fileSecretVariables` read into `<NAME>`, as the
 * official PostgreSQL and Redis images do: a secret mounted as a file (Docker or Kubernetes
 * secrets) never sits in the environment, where `docker inspect` and child processes see it. The
 * file's content is the value, less its trailing line break. Setting both forms is refused, as is
 * a file that cannot be read or holds nothing; errors name the variable, never the content.
 */
export function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of fileSecretVariables) {
    const path = env[`${name}_FILE`];
    if (path === undefined || path === '') continue;
    if (env[name] !== undefined && env[name] !== '')
      throw new SettingsError(`${name}_FILE`, `${name} is set too: set one of the two`);
    out[name] = readSecretFile(`${name}_FILE`, path);
  }
  return out;
}

/** A secret file's content less its trailing line break; errors name `setting` and the path, never the content. */
export function readSecretFile(setting: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new SettingsError(setting, `cannot read ${path} (${code})`);
  }
  const value = text.replace(/\r?\n$/, '');
  if (value.trim() === '') throw new SettingsError(setting, `${path} is empty`);
  return value;
}
