import { describe, expect, it } from 'vitest';
import { sharedColumns, unionViewSql } from '../../src/connections/union-view-sql.js';

const source = (connection: string, columns: Record<string, string>) => ({
  connection,
  schema: `tms_${connection}`,
  columns: Object.entries(columns).map(([name, type]) => ({ name, type })),
});

describe('union views across connections', () => {
  it('keep the columns every connection has with one type, in the first one’s order, never a second `connection`', () => {
    const sources = [
      source('acme', { id: 'text', data: 'jsonb', connection: 'text', total: 'numeric', only_acme: 'text' }),
      source('globex', { total: 'numeric', id: 'text', data: 'jsonb', connection: 'text' }),
      source('initech', { id: 'text', data: 'jsonb', total: 'text', connection: 'text' }),
    ];
    expect(sharedColumns(sources)).toEqual(['id', 'data']);
    expect(sharedColumns(sources.slice(0, 2))).toEqual(['id', 'data', 'total']);
  });

  it('select each connection’s rows with its name first, names quoted', () => {
    const sql = unionViewSql('tms_all', 'invoices', [
      source('acme', { id: 'text' }),
      source('globex', { id: 'text' }),
    ]);
    expect(sql).toBe(
      'create view "tms_all"."invoices" as\n' +
        `select 'acme'::text as connection, "id" from "tms_acme"."invoices"\n` +
        'union all\n' +
        `select 'globex'::text as connection, "id" from "tms_globex"."invoices"`,
    );
  });
});
