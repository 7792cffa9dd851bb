import pg from 'pg';

/** The text of every statement pg's clients send until `stop` (this process's pools). */
export function countPgStatements(): { texts: string[]; stop(): void } {
  const texts: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    texts.push(typeof config === 'string' ? config : (config.text ?? ''));
    return (query as (...all: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return {
    texts,
    stop: () => {
      pg.Client.prototype.query = query;
    },
  };
}
