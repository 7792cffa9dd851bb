import { SimHttpError } from '../sim-http-error.js';

/** The parsed query string as fastify hands it over. */
export type Query = Readonly<Record<string, unknown>>;

const badRequest = (message: string, details?: unknown) =>
  new SimHttpError(400, 'bad_request', message, details);

/** A single-valued query parameter; repeating it is a 400 rather than a silent pick. */
export function queryParam(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`query parameter ${name} must be given once`);
  return value;
}

/** `ids`: comma-separated; blanks between commas are ignored. */
export function idsParam(query: Query, required: boolean): ReadonlySet<string> | undefined {
  const value = queryParam(query, 'ids');
  if (value === undefined || value.trim() === '') {
    if (required) throw badRequest('query parameter ids is required (comma-separated ids)');
    return undefined;
  }
  return splitIds(value);
}

export const splitIds = (value: string): Set<string> =>
  new Set(
    value
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );

// ISO 8601 with a zone, or a calendar date (read as midnight UTC); a time without zone is ambiguous.
const isoMoment = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** A required ISO 8601 moment, in epoch milliseconds. */
export function momentParam(query: Query, name: string): number {
  const value = queryParam(query, name);
  if (value === undefined) throw badRequest(`query parameter ${name} is required (ISO 8601)`);
  const ms = isoMoment.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms))
    throw badRequest(`query parameter ${name} is not an ISO 8601 moment with a zone`, { value });
  return ms;
}

/** A required boolean parameter: `true` or `false`, nothing else. */
export function booleanParam(query: Query, name: string): boolean {
  const value = queryParam(query, name);
  if (value !== 'true' && value !== 'false')
    throw badRequest(`query parameter ${name} is required: true or false`);
  return value === 'true';
}
