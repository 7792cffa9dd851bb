import type { KyselyPlugin, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';

/**
 * A Kysely plugin counting the statements a store runs (`OpenStoreOptions.plugins`) and the rows
 * they return; a transaction's begin and commit are not statements of it.
 */
export interface StatementCounter extends KyselyPlugin {
  statements: number;
  rows: number;
}

export function statementCounter(): StatementCounter {
  return {
    statements: 0,
    rows: 0,
    transformQuery: (args) => args.node,
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      this.statements += 1;
      this.rows += args.result.rows.length;
      return args.result;
    },
  };
}
