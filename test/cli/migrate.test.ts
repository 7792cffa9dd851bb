import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../reliability/support/run-cli.js';
import { dialects } from '../store/store-fixture.js';

describe.each(dialects)('migrate on $name', ({ fixture: makeFixture }) => {
  const fixture = makeFixture();
  afterAll(() => fixture.cleanup());

  it('prints the migrations it applied as a table, then that the store is up to date', async () => {
    const url = await fixture.freshUrl();
    const first = await runCli(['migrate'], { STORE_URL: url });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^migration +does\n/);
    expect(first.stdout).toMatch(/^0007-live-views +live views$/m);
    expect(first.stdout).toMatch(/^stream-tasks +creates table tasks and view tasks_live$/m);
    expect(first.stdout).toMatch(
      /^stream-tasks-spec-ride_id +adds column tasks\.ride_id, filled from data$/m,
    );
    expect(first.stdout).toMatch(/: applied \d+ migrations\n$/);
    expect(first.stdout).not.toContain('{');
    const again = await runCli(['migrate'], { STORE_URL: url });
    expect(again.stdout).toMatch(/: up to date, no migration to apply\n$/);
    expect(JSON.parse((await runCli(['migrate', '--json'], { STORE_URL: url })).stdout)).toEqual({
      applied: [],
      history: { enabled: [], disabled: [] },
    });
  }, 60_000);
});
