import { describe, expect, it } from 'vitest';
import { HttpStatusError } from '../../src/client/index.js';
import { describeFailure } from '../../src/write-back/describe-failure.js';

const target = { method: 'POST', path: '/invoice/invoices/1/payments' };

describe('a failure as a command keeps it', () => {
  it("carries the TMS's answer as received, whatever its shape", () => {
    const body = { error: { status: 409, code: 'invalid_state', message: 'invoice is preliminary' } };
    const text = describeFailure(
      new HttpStatusError('the server answered 409: invoice is preliminary', { target, status: 409, body }),
    );
    expect(text).toContain('-> 409: the server answered 409: invoice is preliminary');
    expect(text).toContain(`the TMS answered: ${JSON.stringify(body)}`);
    expect(
      describeFailure(new HttpStatusError('x', { target, status: 422, body: 'amount: must be positive' })),
    ).toContain('the TMS answered: amount: must be positive');
  });

  it('never keeps a token the TMS echoed back', () => {
    const body = {
      error: {
        message: 'bad header Authorization: Bearer abc.def-123',
        token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
      },
    };
    const message = 'the server answered 400: bad header Authorization: Bearer abc.def-123';
    const text = describeFailure(new HttpStatusError(message, { target, status: 400, body }));
    expect(text).not.toMatch(/abc\.def-123|eyJhbGci/);
    expect(text).toContain('[redacted]');
  });
});
