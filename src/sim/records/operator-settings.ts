import { type Static, Type } from '@sinclair/typebox';
import { Int32 } from './record-parts.js';

/** General mobile settings of an operator. Fields chosen here. */
export const MobileSettings = Type.Object({
  operatorId: Type.String(),
  language: Type.String(),
  distanceUnit: Type.Union([Type.Literal('km'), Type.Literal('mi')]),
  trackingIntervalSeconds: Int32,
  allowChat: Type.Boolean(),
});
export type MobileSettings = Static<typeof MobileSettings>;

const Palette = Type.Object({
  primaryBackground: Type.String(),
  primaryText: Type.String(),
  secondaryBackground: Type.String(),
  secondaryText: Type.String(),
  highlight: Type.String(),
});

/** Color profile, docs/api.md, Records: `light` and `dark` palettes. `name` is chosen here, to key the list. */
export const ColorProfile = Type.Object({ name: Type.String(), light: Palette, dark: Palette });
export type ColorProfile = Static<typeof ColorProfile>;
