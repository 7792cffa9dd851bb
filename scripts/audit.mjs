// CI's supply-chain check (.ci/run): `npm audit --omit=dev` fails on a high or critical advisory of
// a production dependency, unless audit-exceptions.json lists it with a reason
// (docs/dependencies.md). A registry without npm's audit service (a mirror) cannot answer: that is
// said loudly and, unless AUDIT_REQUIRED=1, does not fail the run.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { auditVerdict } from './audit-verdict.mjs';

const exceptions = JSON.parse(readFileSync(new URL('../audit-exceptions.json', import.meta.url), 'utf8'));
const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8' });
let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  report = { message: (run.stderr || run.stdout).trim().split('\n').at(-1) };
}
const verdict = auditVerdict(report, exceptions);
if (!verdict.available) {
  console.log(`npm audit: no answer from the registry's audit service (${verdict.problem})`);
  process.exit(process.env.AUDIT_REQUIRED === '1' ? 1 : 0);
}
for (const line of verdict.excepted) console.log(`npm audit: ${line}`);
for (const line of verdict.blocking) console.log(`npm audit: BLOCKING ${line}`);
console.log(
  `npm audit: ${verdict.blocking.length} blocking, ${verdict.excepted.length} excepted (high and critical, production dependencies)`,
);
process.exit(verdict.blocking.length > 0 ? 1 : 0);
