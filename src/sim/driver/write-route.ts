import type { Static, TSchema } from '@sinclair/typebox';
import type { DriverData, OperatorData } from './driver-data.js';

/** What a write's `apply` gets: the data, the path parameters, the validated body and the time. */
export interface WriteInput<B> {
  readonly data: DriverData;
  readonly params: Readonly<Record<string, string>>;
  readonly body: B;
  /** Now, as ISO 8601. */
  readonly now: string;
}

interface WriteBase<S extends TSchema> {
  readonly method: 'POST' | 'PATCH' | 'PUT';
  readonly path: string;
  /** Name reported by get-processed-mutations. */
  readonly operation: string;
  readonly body: S;
}

/** A write that takes `operatorId` (docs/api.md, Operations); `changesPlan` moves the planning's `generatedAt`. */
export interface OperatorWrite<S extends TSchema = TSchema> extends WriteBase<S> {
  readonly scope: 'operator';
  readonly changesPlan?: boolean;
  apply(input: WriteInput<Static<S>> & { readonly operator: OperatorData }): void;
}

/** A write without `operatorId`. */
export interface GlobalWrite<S extends TSchema = TSchema> extends WriteBase<S> {
  readonly scope: 'global';
  apply(input: WriteInput<Static<S>>): void;
}

export type WriteRoute = OperatorWrite | GlobalWrite;

// The helpers type `apply` from the body schema, then widen the route for the catalogue.
export const operatorWrite = <S extends TSchema>(route: Omit<OperatorWrite<S>, 'scope'>): WriteRoute =>
  ({ ...route, scope: 'operator' }) as unknown as WriteRoute;

export const globalWrite = <S extends TSchema>(route: Omit<GlobalWrite<S>, 'scope'>): WriteRoute =>
  ({ ...route, scope: 'global' }) as unknown as WriteRoute;
