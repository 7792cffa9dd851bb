import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';

async function logIn(sim: SimHandle, apiToken: string): Promise<{ status: number; access?: string }> {
  const answer = await request(`${sim.url}/auth/login-api-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiToken }),
  });
  const body = (await answer.body.json()) as { data?: { items: [{ access: string }] } };
  return { status: answer.statusCode, access: body.data?.items[0].access };
}

async function invoiceIds(sim: SimHandle, access: string): Promise<{ status: number; ids: string[] }> {
  const answer = await request(`${sim.url}/invoice/invoices/?since=1&limit=1000`, {
    headers: { authorization: `Bearer ${access}` },
  });
  const body = (await answer.body.json()) as { data?: { items?: Array<{ id: string }> } };
  return { status: answer.statusCode, ids: (body.data?.items ?? []).map((item) => item.id) };
}

describe('tms-sim serving several accounts', () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startSim({ accounts: 3, invoices: 20, clients: 5, operators: 1, rideDays: 1 });
  });
  afterAll(() => sim.close());

  it('gives each API token its own account: its data, its truth, its changes', async () => {
    const second = await logIn(sim, 'dev-api-token-2');
    const third = await logIn(sim, 'dev-api-token-3');
    expect(second.status).toBe(200);
    const secondIds = await invoiceIds(sim, second.access!);
    const thirdIds = await invoiceIds(sim, third.access!);
    const truth = (account: number) => createSimAdminClient({ url: sim.url, account }).truth('invoices');
    const liveIds = async (account: number) =>
      (await truth(account))
        .invoices!['']!.records.map((record) => String((record as { id: string }).id))
        .sort();
    expect(secondIds.ids.sort()).toEqual(await liveIds(2));
    expect(thirdIds.ids.sort()).toEqual(await liveIds(3));
    expect(secondIds.ids).not.toEqual([]);
    const before = JSON.stringify(await truth(3));
    await createSimAdminClient({ url: sim.url, account: 2 }).applyChanges(10, 1, { streams: ['invoices'] });
    expect(JSON.stringify(await truth(3))).toBe(before);
  });

  it('refuses an API token no account has, and the plain token when every account has its own', async () => {
    expect((await logIn(sim, 'dev-api-token-4')).status).toBe(401);
    expect((await logIn(sim, 'dev-api-token')).status).toBe(401);
    expect((await invoiceIds(sim, 'not-a-token')).status).toBe(401);
  });

  it("rotates one account's API token: its new token logs in to its own data, the others' tokens work on", async () => {
    const third = await logIn(sim, 'dev-api-token-3');
    const second = await logIn(sim, 'dev-api-token-2');
    const admin = createSimAdminClient({ url: sim.url, account: 2 });
    await admin.rotateApiToken('rotated-2');
    try {
      expect((await logIn(sim, 'dev-api-token-2')).status).toBe(401);
      expect((await invoiceIds(sim, second.access!)).status).toBe(401);
      const rotated = await logIn(sim, 'rotated-2');
      expect(rotated.status).toBe(200);
      const ids = await invoiceIds(sim, rotated.access!);
      const truth = await admin.truth('invoices');
      expect(ids.ids.sort()).toEqual(
        truth.invoices!['']!.records.map((record) => String((record as { id: string }).id)).sort(),
      );
      expect((await invoiceIds(sim, third.access!)).status).toBe(200);
      expect((await logIn(sim, 'dev-api-token-3')).status).toBe(200);
    } finally {
      await admin.rotateApiToken('dev-api-token-2');
    }
    expect((await logIn(sim, 'dev-api-token-2')).status).toBe(200);
  });

  it('answers an admin request for an account it does not serve with 404', async () => {
    await expect(createSimAdminClient({ url: sim.url, account: 9 }).truth('invoices')).rejects.toThrow(/404/);
  });
});
