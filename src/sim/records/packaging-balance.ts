import { type Static, Type } from '@sinclair/typebox';

const Balance = Type.Object({ packagingId: Type.String(), balance: Type.Number() });

/** Packaging balance by client, docs/api.md, Records. */
export const ClientPackagingBalance = Type.Object({
  clientId: Type.String(),
  packagingBalances: Type.Array(Balance),
});
export type ClientPackagingBalance = Static<typeof ClientPackagingBalance>;

/** Packaging balance by task. Shape chosen here, after the client one (docs/api.md, Records: not shown). */
export const TaskPackagingBalance = Type.Object({
  taskId: Type.String(),
  packagingBalances: Type.Array(Balance),
});
export type TaskPackagingBalance = Static<typeof TaskPackagingBalance>;
