/**
 * The request target with its raw `.` and `..` path segments resolved (RFC 3986, 5.2.4), as a
 * proxy or server in front of a TMS does before routing: `/invoice/invoices/..` names `/invoice/`.
 * Percent-encoded dots (`%2E`) are a segment's characters, decoded with the route's parameters.
 */
export function removeDotSegments(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const segments = path.split('/');
  if (!segments.some((segment) => segment === '.' || segment === '..')) return url;
  const out: string[] = [];
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === '..') {
      if (out.length > 1) out.pop();
      if (last) out.push('');
    } else if (segment === '.') {
      if (last) out.push('');
    } else {
      out.push(segment);
    }
  }
  return `${out.join('/') || '/'}${queryAt === -1 ? '' : url.slice(queryAt)}`;
}
