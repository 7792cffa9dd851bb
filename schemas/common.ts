import { FormatRegistry, Type } from '@sinclair/typebox';

// TypeBox rejects unknown formats, so the one the protocol uses is registered once, here. The
// shape alone lets `2026-13-45T99:99:99Z` through; a date-time must also name a real instant.
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const isDateTime = (value: string) => dateTimePattern.test(value) && !Number.isNaN(Date.parse(value));
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', isDateTime);

/** ISO 8601 date-time with a zone (the login answer's `expiresAt`). */
export const DateTime = Type.String({ format: 'date-time' });

export const Int32 = Type.Integer({ minimum: -2147483648, maximum: 2147483647 });

/** A sequence number: positive, not dense, up to 2^53 (a listing's `maxSequence`). */
export const Sequence = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
