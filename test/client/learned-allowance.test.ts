import { describe, expect, it } from 'vitest';
import { createLearnedAllowance } from '../../src/client/learned-allowance.js';

/** Feeds answers at `perSecond` for `seconds` on a clock of our own, the TMS accepting up to `limit`. */
function drive(
  allowance: ReturnType<typeof createLearnedAllowance>,
  clock: { at: number },
  options: {
    seconds: number;
    limit: number;
    unpaced: number;
  },
) {
  let refused = 0;
  let sent = 0;
  let credit = options.limit;
  const end = clock.at + options.seconds * 1000;
  let nextSend = clock.at;
  while (clock.at < end) {
    const rate = allowance.rate() || options.unpaced;
    clock.at = nextSend;
    nextSend += 1000 / rate;
    credit = Math.min(options.limit, credit + (rate > 0 ? options.limit / rate : 0));
    sent += 1;
    if (credit >= 1) {
      credit -= 1;
      allowance.accepted();
    } else {
      refused += 1;
      allowance.refused();
    }
  }
  return { sent, refused };
}

describe('the allowance learned from 429s', () => {
  it('is unknown until a 429, then settles just under the rate the TMS accepts, refusing rarely', () => {
    const clock = { at: 0 };
    const allowance = createLearnedAllowance(() => clock.at);
    expect(allowance.rate()).toBe(0);
    drive(allowance, clock, { seconds: 5, limit: 300, unpaced: 500 });
    expect(allowance.rate()).toBeGreaterThan(250);
    const steady = drive(allowance, clock, { seconds: 120, limit: 300, unpaced: 500 });
    expect(steady.sent / 120).toBeGreaterThan(0.9 * 300);
    expect(steady.refused / steady.sent).toBeLessThan(0.01);
  });

  it('finds a raised allowance again, and does not collapse when 429s come at random', () => {
    const clock = { at: 0 };
    const allowance = createLearnedAllowance(() => clock.at);
    drive(allowance, clock, { seconds: 30, limit: 100, unpaced: 500 });
    drive(allowance, clock, { seconds: 120, limit: 200, unpaced: 500 });
    expect(allowance.rate()).toBeGreaterThan(150);
    const random = createLearnedAllowance(() => clock.at);
    for (let i = 0; i < 2000; i++) {
      clock.at += 5;
      if (i % 10 === 0) random.refused();
      else random.accepted();
    }
    expect(random.rate()).toBeGreaterThan(80);
  });
});
