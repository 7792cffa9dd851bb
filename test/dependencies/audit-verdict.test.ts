import { describe, expect, it } from 'vitest';
import { auditVerdict } from '../../scripts/audit-verdict.mjs';

/** A report as `npm audit --json` prints it: one advisory on `pkg`, reached through `parent`. */
function report(severity: string, advisory = 'GHSA-aaaa-bbbb-cccc') {
  return {
    vulnerabilities: {
      pkg: {
        name: 'pkg',
        severity,
        via: [
          {
            source: 1,
            name: 'pkg',
            title: 'Request smuggling',
            url: `https://github.com/advisories/${advisory}`,
            severity,
            range: '<7.1.0',
          },
        ],
      },
      parent: { name: 'parent', severity, via: ['pkg'] },
    },
  };
}

describe('the audit verdict', () => {
  it('blocks on a high or critical advisory, once however many packages it reaches', () => {
    expect(auditVerdict(report('high'), []).blocking).toEqual([
      'high GHSA-aaaa-bbbb-cccc in pkg (<7.1.0): Request smuggling',
    ]);
    expect(auditVerdict(report('critical'), []).blocking).toHaveLength(1);
  });

  it('lets moderate and low advisories pass', () => {
    expect(auditVerdict(report('moderate'), []).blocking).toEqual([]);
  });

  it('lets an excepted advisory pass, with its reason', () => {
    const verdict = auditVerdict(report('high'), [
      { advisory: 'GHSA-aaaa-bbbb-cccc', package: 'pkg', reason: 'only the dev server is affected' },
    ]);
    expect(verdict.blocking).toEqual([]);
    expect(verdict.excepted[0]).toContain('only the dev server is affected');
  });

  it('tells a registry without an audit service from a clean audit', () => {
    const verdict = auditVerdict({ message: '405 Method Not Allowed', statusCode: 405 }, []);
    expect(verdict).toMatchObject({ available: false, problem: '405 Method Not Allowed' });
  });
});
