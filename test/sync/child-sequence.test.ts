import { expect, it } from 'vitest';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

const childStreams = ['invoice_lines', 'invoice_payments', 'client_contacts', 'client_addressbook'];

describeOnEachDialect('sequences of child rows', (fixture) => {
  // A renamed sequence field (TMS_SEQUENCE_FIELD) must fill `sequence` just the same.
  const { setup } = useSyncSetup(fixture, { variant: { sequenceField: 'seqNo' } });

  const count = async (sql: string) =>
    Number((await fixture.query<{ n: number | string }>(await fixture.url(), sql))[0]!.n);

  it("every child row has a sequence: its own, or for an invoice's lines the invoice detail's", async () => {
    const streams = ['invoices', 'clients', ...childStreams];
    await setup().engine.run(streams);
    for (const stream of childStreams) {
      expect(await count(`select count(*) as n from ${stream}`), stream).toBeGreaterThan(0);
      expect(await count(`select count(*) as n from ${stream} where sequence is null`), stream).toBe(0);
    }
    const linesOfAnotherVersion = `select count(*) as n from invoice_lines_live l join invoices i on i.id = l.invoice_id
      where l.sequence <> i.sequence`;
    expect(await count(linesOfAnotherVersion)).toBe(0);
    await setup().admin.applyChanges(60, 3);
    await setup().engine.run(streams);
    expect(await count(linesOfAnotherVersion)).toBe(0);
  });
});
