import { expect, it } from 'vitest';
import { defaultSettings } from '../../config/settings.js';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import { createTmsClient, type TmsClient } from '../../src/client/index.js';
import { fastRetry } from '../client/support/sim.js';
import { stateOf } from '../store/run-pages.js';
import { describeOnEachDialect } from '../support/on-each-dialect.js';
import { startSyncSetup } from '../support/sync-setup.js';

// A chat window with no message in it commits nothing: the next window starts where the last
// committed one ended, so it still covers the quiet one, and a message sent in between is found.
describeOnEachDialect('a quiet chat window', (fixture) => {
  it('writes only its run row, and the next window still finds what arrived since the last commit', async () => {
    const store = await fixture.open();
    // No overlap: a window right after the first holds no message the first one stored.
    const setup = await startSyncSetup(
      store,
      { operators: 1 },
      {
        sync: { ...defaultSettings.sync, windowOverlapSeconds: 0 },
      },
    );
    let client: TmsClient | undefined;
    try {
      const operator = setup.settings.operators[0]!;
      const first = await setup.engine.runPartition('chat_messages', operator);
      expect(first).toMatchObject({ result: 'succeeded', pages: 1 });
      const committed = await stateOf(store, 'chat_messages', operator);
      expect(committed.version).toBeGreaterThan(0);

      const quiet = await setup.engine.runPartition('chat_messages', operator);
      expect(quiet).toMatchObject({ result: 'succeeded', pages: 0, records: 0 });
      expect(quiet.runId).not.toBeNull();
      expect(await stateOf(store, 'chat_messages', operator)).toEqual(committed);

      client = createTmsClient({ baseUrl: setup.sim.url, apiToken: 'dev-api-token', retry: fastRetry });
      const contacts = await client.getChatContacts();
      const toId = String(contacts.find((contact) => String(contact.id) !== operator)!.id);
      await client.sendChatMessage({ toId, text: 'sent after a quiet window' }, { operatorId: operator });

      const next = await setup.engine.runPartition('chat_messages', operator);
      expect(next).toMatchObject({ result: 'succeeded', pages: 1, inserted: 1 });
      expect((await stateOf(store, 'chat_messages', operator)).version).toBeGreaterThan(committed.version);
      expect(await differencesFromTruth(store, await setup.admin.truth(), ['chat_messages'])).toEqual([]);
    } finally {
      await client?.close();
      await setup.close();
      await store.close();
    }
  });
});
