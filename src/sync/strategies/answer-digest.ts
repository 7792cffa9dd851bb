import { hash } from 'node:crypto';

/**
 * A fingerprint of a snapshot pass's answers as received: what each part asked for and its bytes,
 * hashed as it arrives (parts arrive in any order), then those hashes in the parts' order, so two passes over the same
 * parts whose every answer is equal to the byte have the same value. A part with no answer (a
 * referenced resource that does not exist) counts as one. Only the bytes count: a TMS that writes
 * the same records in another order or spacing gives another value, and the pass is then read.
 */
export class AnswerDigest {
  readonly #parts: string[];

  constructor(parts: number) {
    this.#parts = new Array<string>(parts).fill('');
  }

  /** The answer to part `index`, which asked for `asked` (its ids: a record's key may be the id asked for). */
  add(index: number, asked: string, bytes: Buffer | undefined): void {
    const answer = bytes ? hash('sha256', bytes, 'base64url') : 'absent';
    this.#parts[index] = `${hash('sha256', asked, 'base64url')}.${answer}`;
  }

  value(): string {
    return hash('sha256', `${this.#parts.length}:${this.#parts.join(',')}`, 'base64url');
  }
}
