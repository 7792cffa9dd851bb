import type { Static, TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { isJsonObject, type JsonObject, jsonTypeOf } from '../../schemas/json-object.js';
import { type RequestTarget, ResponseValidationError, type ValidationIssue } from './client-errors.js';

const maxIssues = 5;
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The compiled validator of a schema, compiled on first use and cached for the process. */
function validatorFor<T extends TSchema>(schema: T): TypeCheck<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check as TypeCheck<T>;
}

/** The first problems of an invalid value, with their paths (`/data/hasMore`). */
function validationIssues(check: TypeCheck<TSchema>, value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of check.Errors(value)) {
    issues.push({ path: error.path, message: error.message });
    if (issues.length >= maxIssues) break;
  }
  return issues;
}

/** Validates a protocol value (an envelope, the login answer) or throws ResponseValidationError naming `what`. */
export function assertValid<T extends TSchema>(
  schema: T,
  value: unknown,
  what: string,
  target: RequestTarget,
): Static<T> {
  const check = validatorFor(schema);
  if (check.Check(value)) return value;
  throw new ResponseValidationError(`${what} does not match its schema`, {
    target,
    issues: validationIssues(check, value),
  });
}

/**
 * The records of an answer, checked to be JSON objects and nothing more: their fields are the
 * TMS's own (docs/records.md). An item that is not an object cannot be a record, so it fails the
 * whole answer, naming its position, and nothing of it is stored.
 */
export function recordObjects(items: readonly unknown[], target: RequestTarget): JsonObject[] {
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (!isJsonObject(item)) {
      throw new ResponseValidationError(
        `item ${index + 1} of ${items.length} is ${article(jsonTypeOf(item))}, not a record object`,
        { target },
      );
    }
  }
  return items as JsonObject[];
}

/** One record of a single-resource answer, checked to be a JSON object. */
export function recordObject(value: unknown, target: RequestTarget): JsonObject {
  if (isJsonObject(value)) return value;
  throw new ResponseValidationError(`the record is ${article(jsonTypeOf(value))}, not an object`, { target });
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
