import { FormatRegistry, type TSchema, Type } from '@sinclair/typebox';
import { DateTime } from '../../../schemas/common.js';

// The building blocks of tms-sim's record schemas beyond the protocol's (schemas/common.ts).
export { DateTime, Int32, Sequence } from '../../../schemas/common.js';

const datePattern = /^\d{4}-\d{2}-\d{2}$/;
if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (value) => datePattern.test(value));

/** A value or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Calendar date `YYYY-MM-DD`. */
export const CalendarDate = Type.String({ format: 'date' });

export const Location = Type.Object({ latitude: Type.Number(), longitude: Type.Number() });

/** Planned or requested time span; both ends may be unknown. */
export const TimeSpan = Type.Object({ start: Nullable(DateTime), end: Nullable(DateTime) });
