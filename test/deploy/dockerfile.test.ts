import { describe, expect, it } from 'vitest';
import { dockerfileStages, execForm, type Instruction } from './dockerfile-parts.js';

// No container engine runs in CI: `npm run lint` checks the Dockerfile's syntax
// (dockerfile-utils) and the compose file against the Compose schema (dclint); these are the
// rules of docs/deploy.md that a linter such as hadolint would hold the file to.
const stages = dockerfileStages();
const final = stages.at(-1)!;
const all = (stage: Instruction[], keyword: string) => stage.filter((item) => item.keyword === keyword);

describe('the Dockerfile', () => {
  it('builds in a stage of its own and ships the production dependencies and dist/ alone', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(all(final, 'COPY').map((item) => item.args)).toEqual([
      '--from=build /app/package.json ./',
      '--from=build /app/node_modules ./node_modules',
      '--from=build /app/dist ./dist',
    ]);
    const build = stages[0]!.map((item) => item.args).join('\n');
    expect(build).toContain('npm prune --omit=dev');
  });

  it('names a tag for every base image (never latest)', () => {
    for (const stage of stages)
      expect(stage[0]!.args).toMatch(/^[\w./-]+:(?!latest\b)[\w.-]+(\s+AS\s+\w+)?$/i);
  });

  it('runs as a user who is not root', () => {
    const users = all(final, 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
  });

  it('starts node itself in exec form (SIGTERM reaches the worker), on the build in dist/', () => {
    expect(execForm(all(final, 'ENTRYPOINT').at(-1)!.args)).toEqual(['node', 'dist/tms-sync.js']);
    expect(execForm(all(final, 'CMD').at(-1)!.args)).toEqual(['worker']);
  });

  it('checks health by readiness (/readyz), in exec form', () => {
    const healthcheck = all(final, 'HEALTHCHECK').at(-1)!.args;
    const command = execForm(healthcheck.slice(healthcheck.indexOf('CMD')));
    expect(command[0]).toBe('node');
    expect(command.join(' ')).toContain('/readyz');
  });

  it('installs Debian packages without recommends and leaves no package lists behind', () => {
    for (const run of stages
      .flatMap((stage) => all(stage, 'RUN'))
      .filter((item) => item.args.includes('apt-get install'))) {
      expect(run.args).toContain('--no-install-recommends');
      expect(run.args).toContain('rm -rf /var/lib/apt/lists/*');
    }
  });
});
