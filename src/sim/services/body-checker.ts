import type { Static, TObject } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { SimHttpError } from '../sim-http-error.js';

/** One invalid field of a request body, as the 422 answer lists it. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * A compiled check of a JSON body: 400 when it is not a JSON object, 422 naming every invalid,
 * unknown or read-only field (the first problem per field).
 */
export function createBodyChecker<T extends TObject>(schema: T): (body: unknown) => Static<T> {
  const compiled = TypeCompiler.Compile(schema);
  return (body) => {
    const object = requireObject(body);
    const problems: FieldProblem[] = Object.keys(object)
      .filter((key) => !(key in schema.properties))
      .map((field) => ({ field, message: 'unknown or read-only field' }));
    if (problems.length === 0) problems.push(...schemaProblems(compiled.Errors(object)));
    if (problems.length > 0) throw validationFailed(problems);
    return object as Static<T>;
  };
}

export function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SimHttpError(
      400,
      'malformed_request',
      'the body must be a JSON object (Content-Type: application/json)',
    );
  }
  return body as Record<string, unknown>;
}

/** The first problem per field, fields as dotted paths (`lines.0.quantity`). */
export function schemaProblems(errors: Iterable<{ path: string; message: string }>): FieldProblem[] {
  const problems = new Map<string, string>();
  for (const error of errors) {
    const field = error.path.split('/').slice(1).join('.') || '(body)';
    if (!problems.has(field)) problems.set(field, error.message);
  }
  return [...problems].map(([field, message]) => ({ field, message }));
}

export function validationFailed(problems: readonly FieldProblem[]): SimHttpError {
  return new SimHttpError(
    422,
    'validation_failed',
    `invalid fields: ${problems.map((p) => p.field).join(', ')}`,
    problems,
  );
}
