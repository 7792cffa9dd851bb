import { type Static, Type } from '@sinclair/typebox';
import { accountFields } from './account-fields.js';

/**
 * One entry of the config file's `connections`: the account keys of the file's top level, each
 * unset one inherited from the default connection where that makes sense (resolve-connection.ts),
 * and `paused`. A token is a reference, never the token itself (token-reference.ts).
 */
export const ConnectionFile = Type.Object(
  {
    ...accountFields,
    /** The worker schedules nothing of a paused connection. @default false */
    paused: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ConnectionFile = Static<typeof ConnectionFile>;
