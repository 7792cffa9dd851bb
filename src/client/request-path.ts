import { InvalidArgumentError } from './client-errors.js';

type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

/** The parameters a path template such as `/invoice/invoices/{invoiceId}/payments` needs. */
export type PathParams<P extends string> = { readonly [K in PathParamNames<P>]: string | number };

/** Query values; `undefined` is left out, arrays are joined with commas (as `ids` expects). */
export type QueryParams = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

/** Fills `{name}` placeholders with percent-encoded values: ids may hold `/`, `#`, `?`, `%` or spaces. */
export function buildPath(template: string, params: object): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = (params as Record<string, unknown>)[name];
    if ((typeof value !== 'string' && typeof value !== 'number') || value === '') {
      throw new InvalidArgumentError(`path parameter ${name} of ${template} is missing`);
    }
    return encodePathSegment(String(value));
  });
}

/**
 * One path segment, percent-encoded, dots included (`%2E`): an id `.` or `..` sent raw is a dot
 * segment, which a proxy or server resolves (`/invoices/..` -> `/`) into another resource.
 */
export function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replaceAll('.', '%2E');
}

/** The names of a template's placeholders, in order. */
export function pathParamNames(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}

/**
 * Serializes query parameters without the leading `?`, byte for byte as URLSearchParams does
 * (form encoding: a space is `+`), without making one per request.
 */
export function buildQuery(params: QueryParams | undefined): string {
  let query = '';
  if (params === undefined) return query;
  for (const name of Object.keys(params)) {
    const value = params[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : String(value);
    query += `${query === '' ? '' : '&'}${formEncode(name)}=${formEncode(text)}`;
  }
  return query;
}

/** What form encoding leaves as it is: ASCII letters and digits, `*`, `-`, `.` and `_`. */
const formSafe = /^[\w.*-]*$/;
/** What encodeURIComponent leaves but form encoding does not, and the space it writes as `%20`. */
const formOnly = /[!'()~]|%20/g;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function formEncode(text: string): string {
  if (formSafe.test(text)) return text;
  // Lone surrogates become U+FFFD, as URLSearchParams reads its strings (encodeURIComponent throws).
  return encodeURIComponent(text.replace(loneSurrogate, '\uFFFD')).replace(formOnly, (found) =>
    found === '%20' ? '+' : `%${found.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
