/** One change `POST /_sim/changes` applied; `scope` is the parent's id for child streams. */
export interface SimChange {
  readonly kind: string;
  readonly stream: string;
  readonly id: string;
  readonly scope?: string;
  readonly operatorId?: string;
}
