import type { Static, TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { SimHttpError } from '../sim-http-error.js';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** Checks a request body against its schema; a body that does not match is a 422 naming the fields. */
export function validateBody<S extends TSchema>(schema: S, body: unknown): Static<S> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  if (check.Check(body)) return body as Static<S>;
  const details = [...check.Errors(body)]
    .slice(0, 10)
    .map((error) => ({ path: error.path, message: error.message }));
  throw new SimHttpError(
    422,
    'validation_failed',
    'the request body does not match the operation schema',
    details,
  );
}

/** A body that is valid JSON but refers to something that does not exist (a task, a trace type, ...). */
export const unknownReference = (what: string, id: string | number) =>
  new SimHttpError(422, 'unknown_reference', `unknown ${what}: ${id}`, { [what]: id });

export const notFound = (what: string, id: string | number) =>
  new SimHttpError(404, 'not_found', `no ${what} ${id}`, { [what]: id });
