import { isIP } from 'node:net';
import { redactUrl } from '../src/secrets/url-credentials.js';
import { SettingsError } from './settings-error.js';

/** An http(s) URL without credentials: the TMS is reached with TMS_API_TOKEN, and a URL gets logged. */
export function checkHttpUrl(setting: string, value: string): void {
  const url = parseUrl(setting, value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SettingsError(setting, `expected an http or https URL, got "${url.protocol}"`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new SettingsError(
      setting,
      `carries credentials ("${redactUrl(value)}"): remove the user:password@ part; the TMS is reached with TMS_API_TOKEN`,
    );
  }
}

/** `redis://` or `rediss://`, a host, an optional port and database number. */
export function checkRedisUrl(setting: string, value: string): void {
  const expected = 'expected redis://[USER:PASSWORD@]HOST:PORT[/DB]';
  const url = parseUrl(setting, value, expected);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new SettingsError(setting, `${expected}, got the scheme "${url.protocol}"`);
  }
  if (url.hostname === '') throw new SettingsError(setting, `names no host: ${expected}`);
  if (!/^(\/\d*)?$/.test(url.pathname)) {
    throw new SettingsError(setting, `the database must be a number: ${expected}`);
  }
}

/** An IP address or a host name to listen on (no brackets, no port: OPS_PORT holds it). */
export function checkListenHost(setting: string, value: string): void {
  if (isIP(value) !== 0 || hostName.test(value)) return;
  throw new SettingsError(
    setting,
    `expected an IP address (127.0.0.1, 0.0.0.0, ::1) or a host name, got "${value}"`,
  );
}

const label = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
const hostName = new RegExp(`^(?=.{1,253}$)${label}(\\.${label})*\\.?$`, 'i');

/** A port number written in decimal digits (Number() would take `0x50` and `1e3`). */
export function parsePort(setting: string, value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new SettingsError(setting, `expected a port number 0-65535 in decimal digits, got "${value}"`);
  }
  return port;
}

function parseUrl(setting: string, value: string, expected?: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new SettingsError(setting, `not a URL: "${redactUrl(value)}"${expected ? `; ${expected}` : ''}`);
  }
}
