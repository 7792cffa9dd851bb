import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable } from './record-parts.js';

/** Chat message. Fields chosen here; `sentAt` is what fromMoment/toMoment select on. */
export const ChatMessage = Type.Object({
  id: Type.String(),
  fromId: Type.String(),
  toId: Type.String(),
  text: Type.String(),
  sentAt: DateTime,
  readAt: Nullable(DateTime),
});
export type ChatMessage = Static<typeof ChatMessage>;

/** Chat contact. Fields chosen here. */
export const ChatContact = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('planner'), Type.Literal('driver'), Type.Literal('group')]),
});
export type ChatContact = Static<typeof ChatContact>;
