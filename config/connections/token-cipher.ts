import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { processSecrets } from '../../src/secrets/secret-registry.js';
import { SettingsError } from '../settings-error.js';

/** The environment variable holding the key of encrypted tokens (or `TMS_CONNECTIONS_KEY_FILE`). */
export const connectionsKeyVariable = 'TMS_CONNECTIONS_KEY';

/** How an encrypted token starts: the format's version, so a later one can be read beside it. */
export const encryptedPrefix = 'enc:v1:';

const ivBytes = 12;
const tagBytes = 16;
// Binds a ciphertext to its use: a value encrypted for something else does not decrypt as a token.
const additionalData = Buffer.from('tms-sync connection token v1');

/**
 * The key of TMS_CONNECTIONS_KEY: 32 bytes written as base64 (`openssl rand -base64 32`,
 * `tms-sync connections generate-key`) or as 64 hex digits. Errors name the variable, never its value.
 */
export function connectionsKey(env: NodeJS.ProcessEnv): Buffer {
  const text = env[connectionsKeyVariable]?.trim() ?? '';
  if (text === '')
    throw new SettingsError(
      connectionsKeyVariable,
      'is not set: encrypted tokens (enc:v1:...) need the key they were encrypted with',
    );
  processSecrets.add(text);
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32)
    throw new SettingsError(
      connectionsKeyVariable,
      'expected 32 bytes as base64 (openssl rand -base64 32) or 64 hex digits',
    );
  return key;
}

/** A new random key, base64, for TMS_CONNECTIONS_KEY. */
export const generateConnectionsKey = (): string => randomBytes(32).toString('base64');

/** `token` encrypted with AES-256-GCM under `key`: `enc:v1:<base64url of iv, tag, ciphertext>`. */
export function encryptToken(token: string, key: Buffer): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(additionalData);
  const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return `${encryptedPrefix}${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
}

/**
 * The token of an `enc:v1:` value, or undefined when it does not decrypt under `key` (another key,
 * a value cut short or changed): GCM's tag tells, so a wrong key never yields a wrong token.
 */
export function decryptToken(value: string, key: Buffer): string | undefined {
  const blob = Buffer.from(value.slice(encryptedPrefix.length), 'base64url');
  if (blob.length <= ivBytes + tagBytes) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(0, ivBytes)).setAAD(additionalData);
    decipher.setAuthTag(blob.subarray(ivBytes, ivBytes + tagBytes));
    return Buffer.concat([decipher.update(blob.subarray(ivBytes + tagBytes)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return undefined;
  }
}
