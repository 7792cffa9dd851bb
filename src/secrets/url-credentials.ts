/**
 * Credentials in a connection URL (STORE_URL, REDIS_URL), found by the URL's shape rather than by
 * a URL parser: a malformed value (`user:pw/x@host`, a second `@`) is exactly the one an error
 * message shows, and a parser refuses it.
 */

const shape = /^([a-z][a-z0-9+.-]*:\/\/)([^?#]*)([?#].*)?$/is;
/** Query parameters that carry a secret (`password`, `sslpassword`, `auth_token`, ...). */
const secretParameter = /pass|secret|token/i;
const mask = '***';

/** The URL with the password of its user info and every secret-named query parameter replaced by `***`. */
export function redactUrl(value: string): string {
  const parts = split(value);
  if (!parts) return value;
  const userInfo = parts.password === undefined ? parts.userInfo : `${parts.user}:${mask}`;
  const at = parts.userInfo === undefined ? '' : `${userInfo}@`;
  return `${parts.scheme}${at}${parts.hostAndPath}${redactQuery(parts.query)}`;
}

/** The secrets the URL carries, as written and decoded: the password and secret-named query parameters. */
export function urlSecrets(value: string): string[] {
  const parts = split(value);
  if (!parts) return [];
  const found = [
    ...(parts.password === undefined ? [] : [parts.password]),
    ...queryParameters(parts.query)
      .filter(([name]) => secretParameter.test(name))
      .map(([, secret]) => secret),
  ];
  return [...new Set(found.flatMap((secret) => [secret, decoded(secret)]))].filter((secret) => secret !== '');
}

interface UrlParts {
  readonly scheme: string;
  /** Everything before the last `@` of the part before the query: what a reader would take for credentials. */
  readonly userInfo: string | undefined;
  readonly user: string | undefined;
  readonly password: string | undefined;
  readonly hostAndPath: string;
  readonly query: string;
}

function split(value: string): UrlParts | undefined {
  const match = shape.exec(value);
  if (!match) return undefined;
  const [, scheme = '', rest = '', query = ''] = match;
  const at = rest.lastIndexOf('@');
  if (at === -1) {
    return { scheme, userInfo: undefined, user: undefined, password: undefined, hostAndPath: rest, query };
  }
  const userInfo = rest.slice(0, at);
  const colon = userInfo.indexOf(':');
  return {
    scheme,
    userInfo,
    user: colon === -1 ? userInfo : userInfo.slice(0, colon),
    password: colon === -1 ? undefined : userInfo.slice(colon + 1),
    hostAndPath: rest.slice(at + 1),
    query,
  };
}

function queryParameters(query: string): Array<[string, string]> {
  const search = query.startsWith('?') ? query.slice(1).split('#')[0]! : '';
  return search
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals === -1 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)];
    });
}

function redactQuery(query: string): string {
  return query.replace(/([?&])([^=&#]*)=([^&#]*)/g, (whole, separator: string, name: string) =>
    secretParameter.test(name) ? `${separator}${name}=${mask}` : whole,
  );
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
