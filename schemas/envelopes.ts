import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { DateTime, Int32, Sequence } from './common.js';

/** Driver API list envelope, spec 2.1: `{data: {code, items, itemCount}}`. */
export const DriverEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Object({ code: Int32, items: Type.Array(item), itemCount: Int32 }) });

/** Paginated REST listing envelope, spec 2.2; `items` may be absent on an empty page. */
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

/** Login answer, PRODUCT.md section 4. */
export const LoginResponse = Type.Object({
  data: Type.Object({
    items: Type.Array(Type.Object({ access: Type.String({ minLength: 1 }), expiresAt: DateTime }), {
      minItems: 1,
    }),
  }),
});
export type LoginResponse = Static<typeof LoginResponse>;

/** Login request, PRODUCT.md section 4. */
export const LoginRequest = Type.Object({ apiToken: Type.String({ minLength: 1 }) });
export type LoginRequest = Static<typeof LoginRequest>;

/** The simulator's error body, PRODUCT.md section 8; the worker treats any error body as opaque. */
export const SimErrorBody = Type.Object({
  error: Type.Object({
    status: Int32,
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Unknown()),
  }),
});
export type SimErrorBody = Static<typeof SimErrorBody>;
