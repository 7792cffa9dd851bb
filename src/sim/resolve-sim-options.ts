import { resolveFaultRates } from './fault-profiles.js';
import type { SimOptions, SimVariant } from './sim-options.js';

/** Options of the simulator as callers pass them: every field optional, the variant too. */
export type SimOptionsInput = Partial<Omit<SimOptions, 'variant'>> & { variant?: Partial<SimVariant> };

/** Thrown by resolveSimOptions; `option` names the offending option (`variant.idStyle`, ...). */
export class SimOptionsError extends Error {
  override readonly name = 'SimOptionsError';

  constructor(
    readonly option: string,
    readonly problem: string,
  ) {
    super(`Invalid simulator option ${option}: ${problem}`);
  }
}

export const defaultVariant: Readonly<SimVariant> = Object.freeze({
  errorBody: 'json',
  singleEnvelope: 'data',
  cursorOnLastPage: false,
  tokenFormat: 'jwt',
  sequenceField: 'sequence',
  idStyle: 'plain',
  largeSequences: false,
  recordShapes: 'default',
  recordShapesSeed: 1,
});

export const defaultSimOptions: Readonly<SimOptions> = Object.freeze({
  seed: 1,
  invoices: 1000,
  clients: 200,
  operators: 2,
  rideDays: 7,
  accounts: 1,
  apiToken: 'dev-api-token',
  adminToken: 'dev-admin-token',
  tokenTtlSeconds: 3600,
  loginPath: '/auth/login-api-token',
  faults: 'none',
  rateLimitPerSecond: 0,
  jsonCacheSize: 200_000,
  now: Date.now,
  variant: defaultVariant,
});

/** The most records of one kind the generator accepts (ids have 10 digits, sequences must stay safe). */
export const maxRecords = 20_000_000;

/** Record fields the sequence field must not shadow. */
const reservedFields = ['id', 'status', 'modifiedAt', 'clientId', 'invoiceId', 'totals', 'lines', 'name'];

/** Merges the defaults (the one place they live) and checks every option; the result is frozen. */
export function resolveSimOptions(input: SimOptionsInput = {}): SimOptions {
  const { variant: variantInput, ...rest } = input;
  const variant = Object.freeze({ ...defaultVariant, ...withoutUndefined(variantInput ?? {}) });
  const options: SimOptions = { ...defaultSimOptions, ...withoutUndefined(rest), variant };
  checkInteger('seed', options.seed, 0, 0xffffffff);
  checkInteger('invoices', options.invoices, 0, maxRecords);
  checkInteger('clients', options.clients, 0, maxRecords);
  checkInteger('operators', options.operators, 0, 10_000);
  checkInteger('rideDays', options.rideDays, 1, 31);
  checkInteger('accounts', options.accounts, 1, 1000);
  checkInteger('tokenTtlSeconds', options.tokenTtlSeconds, 1, 10 * 365 * 86_400);
  checkInteger('jsonCacheSize', options.jsonCacheSize, 0, 100_000_000);
  check(
    'rateLimitPerSecond',
    Number.isFinite(options.rateLimitPerSecond) && options.rateLimitPerSecond >= 0,
    'must be a number >= 0 (0 = unlimited)',
  );
  check('apiToken', isToken(options.apiToken), 'must be a non-empty string without spaces');
  check('adminToken', isToken(options.adminToken), 'must be a non-empty string without spaces');
  check(
    'loginPath',
    /^\/[\w\-./]*$/.test(options.loginPath) && !options.loginPath.startsWith('/_sim'),
    'must be a path starting with /',
  );
  check('now', typeof options.now === 'function', 'must be a function returning milliseconds');
  const rates = resolveFaultRates(options.faults);
  if (typeof rates === 'string') throw new SimOptionsError('faults', rates);
  checkVariant(variant);
  return Object.freeze(options);
}

function checkVariant(variant: SimVariant): void {
  checkEnum('variant.errorBody', variant.errorBody, ['json', 'flat', 'text']);
  checkEnum('variant.singleEnvelope', variant.singleEnvelope, ['data', 'items']);
  checkEnum('variant.tokenFormat', variant.tokenFormat, ['jwt', 'opaque']);
  checkEnum('variant.idStyle', variant.idStyle, ['plain', 'unsafe', 'dots']);
  checkEnum('variant.recordShapes', variant.recordShapes, ['default', 'alt', 'random']);
  checkInteger('variant.recordShapesSeed', variant.recordShapesSeed, 0, 0xffffffff);
  check('variant.cursorOnLastPage', typeof variant.cursorOnLastPage === 'boolean', 'must be a boolean');
  check('variant.largeSequences', typeof variant.largeSequences === 'boolean', 'must be a boolean');
  check(
    'variant.sequenceField',
    typeof variant.sequenceField === 'string' &&
      /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(variant.sequenceField) &&
      !reservedFields.includes(variant.sequenceField),
    `must be an identifier other than ${reservedFields.join(', ')}`,
  );
}

function withoutUndefined<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function check(option: string, ok: boolean, problem: string): void {
  if (!ok) throw new SimOptionsError(option, problem);
}

function checkInteger(option: string, value: unknown, min: number, max: number): void {
  const ok = Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
  check(option, ok, `must be an integer from ${min} to ${max} (got ${String(value)})`);
}

function checkEnum(option: string, value: unknown, allowed: readonly string[]): void {
  check(
    option,
    allowed.includes(value as string),
    `must be one of ${allowed.join(', ')} (got ${String(value)})`,
  );
}

function isToken(value: unknown): boolean {
  return typeof value === 'string' && /^\S+$/.test(value);
}
