import { processSecrets } from '../../src/secrets/secret-registry.js';
import { readSecretFile } from '../secret-files.js';
import { SettingsError } from '../settings-error.js';
import { connectionsKey, decryptToken, encryptedPrefix } from './token-cipher.js';

/** Where a connection's token is kept: the config file and the store hold only this. */
export type TokenReference =
  | { readonly kind: 'env'; readonly variable: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'encrypted'; readonly value: string };

const forms = '"env:NAME", "file:/path/to/token" or "enc:v1:..." (tms-sync connections encrypt-token)';

/**
 * The reference a token setting holds. Anything else is refused as a token written in plain text,
 * naming the setting (`connections.acme.apiToken`) and never the value.
 */
export function parseTokenReference(setting: string, value: string): TokenReference {
  if (value.startsWith('env:')) {
    const variable = value.slice('env:'.length);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
      throw new SettingsError(setting, `"env:" names no environment variable: expected ${forms}`);
    return { kind: 'env', variable };
  }
  if (value.startsWith('file:')) {
    const path = value.slice('file:'.length);
    if (path === '') throw new SettingsError(setting, `"file:" names no file: expected ${forms}`);
    return { kind: 'file', path };
  }
  if (value.startsWith(encryptedPrefix)) return { kind: 'encrypted', value };
  // The value was meant as a secret: no message may show it, even this one's neighbours.
  processSecrets.add(value);
  throw new SettingsError(
    setting,
    `a token is never written in plain text in the config file: give ${forms}`,
  );
}

/** The token a reference stands for, from the environment `env`; errors name the setting and where it looked. */
export function readTokenReference(
  setting: string,
  reference: TokenReference,
  env: NodeJS.ProcessEnv,
): string {
  if (reference.kind === 'file') return readSecretFile(setting, reference.path);
  if (reference.kind === 'env') {
    const value = env[reference.variable];
    if (value === undefined || value === '')
      throw new SettingsError(setting, `the environment variable ${reference.variable} it names is not set`);
    return value;
  }
  const token = decryptToken(reference.value, connectionsKey(env));
  if (token === undefined)
    throw new SettingsError(
      setting,
      'does not decrypt with TMS_CONNECTIONS_KEY: another key, or the value was changed or cut short',
    );
  return token;
}
