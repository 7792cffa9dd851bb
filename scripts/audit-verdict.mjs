// What `npm audit --omit=dev --json` means for CI (scripts/audit.mjs): the high and critical
// advisories of the production dependencies not excepted in audit-exceptions.json, each excepted
// one with the reason given for it. Plain JavaScript, so CI runs it without a build.

const failing = new Set(['high', 'critical']);

/**
 * @param {any} report the JSON npm audit printed
 * @param {Array<{ advisory: string, package: string, reason: string }>} exceptions
 * @returns {{ available: boolean, problem?: string, blocking: string[], excepted: string[] }}
 */
export function auditVerdict(report, exceptions) {
  if (!report || typeof report.vulnerabilities !== 'object') {
    const problem = report?.message ?? report?.error?.summary ?? 'no vulnerabilities section';
    return { available: false, problem, blocking: [], excepted: [] };
  }
  const known = new Map(exceptions.map((entry) => [entry.advisory, entry]));
  const blocking = new Set();
  const excepted = new Set();
  for (const vulnerability of Object.values(report.vulnerabilities)) {
    // `via` holds the advisories themselves (objects) or the names of the packages they come through.
    for (const via of vulnerability.via ?? []) {
      if (typeof via !== 'object' || !failing.has(via.severity)) continue;
      const advisory = String(via.url ?? via.source)
        .split('/')
        .at(-1);
      const line = `${via.severity} ${advisory} in ${via.name} (${via.range}): ${via.title}`;
      const exception = known.get(advisory);
      if (exception) excepted.add(`${line}; excepted: ${exception.reason}`);
      else blocking.add(line);
    }
  }
  return { available: true, blocking: [...blocking], excepted: [...excepted] };
}
