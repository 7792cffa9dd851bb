import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SimHttpError } from '../sim-http-error.js';

/** The filter a paging cycle was started with; every page of the cycle keeps it. */
export interface CursorFilter {
  readonly status?: string;
  readonly sort?: string;
  readonly since?: number;
}

/** What an opaque cursor carries. */
export interface CursorState {
  /** The listing (and scope) that issued it. */
  readonly listing: string;
  readonly filter: CursorFilter;
  /** Position of the last entry delivered, and its sequence (the key of sequence-sorted pages). */
  readonly after: number;
  readonly afterSequence: number;
  /** maxSequence fixed at the first page of a `since` cycle. */
  readonly snapshot?: number;
}

export interface CursorCodec {
  encode(state: CursorState): string;
  /** The state of a cursor issued for `listing`; 400 for a forged, tampered or foreign one. */
  decode(cursor: string, listing: string): CursorState;
}

/**
 * Cursors are base64url JSON plus an HMAC-SHA256 tag under a per-process secret: opaque to clients,
 * unforgeable, and bound to the listing and scope that issued them.
 */
export function createCursorCodec(secret: Buffer = randomBytes(32)): CursorCodec {
  const tag = (payload: string) => createHmac('sha256', secret).update(payload).digest().subarray(0, 16);
  const invalid = (message: string) => new SimHttpError(400, 'invalid_cursor', message);
  return {
    encode(state) {
      const { listing, filter, after, afterSequence, snapshot } = state;
      const payload = Buffer.from(
        JSON.stringify([listing, filter, after, afterSequence, snapshot ?? null]),
      ).toString('base64url');
      return `${payload}.${tag(payload).toString('base64url')}`;
    },
    decode(cursor, listing) {
      const [payload, signature, extra] = cursor.split('.');
      if (!payload || !signature || extra !== undefined) throw invalid('cursor is malformed');
      const given = Buffer.from(signature, 'base64url');
      const expected = tag(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw invalid('cursor was not issued by this server or was altered');
      }
      const [issuer, filter, after, afterSequence, snapshot] = JSON.parse(
        Buffer.from(payload, 'base64url').toString(),
      );
      if (issuer !== listing) throw invalid('cursor belongs to another listing');
      return { listing: issuer, filter, after, afterSequence, snapshot: snapshot ?? undefined };
    },
  };
}
