import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { DateTime, Int32, Sequence } from './common.js';

/** Driver API list envelope, docs/api.md, Envelopes: `{data: {code, items, itemCount}}`. */
export const DriverEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Object({ code: Int32, items: Type.Array(item), itemCount: Int32 }) });

/** Paginated REST listing envelope, docs/api.md, Envelopes; `items` may be absent on an empty page. */
export const PageEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Object({
      items: Type.Optional(Type.Array(item)),
      nextCursor: Type.Optional(Type.String()),
      hasMore: Type.Boolean(),
      maxSequence: Type.Optional(Sequence),
    }),
  });

/** The page envelope without its items: what the client checks before it looks at records. */
export const PageMeta = PageEnvelope(Type.Unknown());
export type PageMeta = Static<typeof PageMeta>;

/** Login answer, docs/api.md, Authentication. */
export const LoginResponse = Type.Object({
  data: Type.Object({
    items: Type.Array(Type.Object({ access: Type.String({ minLength: 1 }), expiresAt: DateTime }), {
      minItems: 1,
    }),
  }),
});
export type LoginResponse = Static<typeof LoginResponse>;

/** Login request, docs/api.md, Authentication. */
export const LoginRequest = Type.Object({ apiToken: Type.String({ minLength: 1 }) });
export type LoginRequest = Static<typeof LoginRequest>;
