import { FormatRegistry, type TSchema, Type } from '@sinclair/typebox';

// TypeBox rejects unknown formats, so the two the spec uses are registered once, here.
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const datePattern = /^\d{4}-\d{2}-\d{2}$/;
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (value) => dateTimePattern.test(value));
if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (value) => datePattern.test(value));

/** A value or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** ISO 8601 date-time with zone, as the spec's `date-time`. */
export const DateTime = Type.String({ format: 'date-time' });

/** Calendar date `YYYY-MM-DD`. */
export const CalendarDate = Type.String({ format: 'date' });

export const Int32 = Type.Integer({ minimum: -2147483648, maximum: 2147483647 });

/** A record's sequence number: positive, not dense, up to 2^53. */
export const Sequence = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const Location = Type.Object({ latitude: Type.Number(), longitude: Type.Number() });

/** Planned or requested time span; both ends may be unknown. */
export const TimeSpan = Type.Object({ start: Nullable(DateTime), end: Nullable(DateTime) });
