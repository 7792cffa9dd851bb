import type { Static, TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { type RequestTarget, ResponseValidationError, type ValidationIssue } from './errors.js';

/** A record that failed validation: what was received and why it was refused. */
export interface RejectedRecord {
  readonly record: unknown;
  readonly issues: readonly ValidationIssue[];
}

/** Records of one answer, split into the valid ones and the rejected ones. */
export interface RecordBatch<T> {
  readonly items: T[];
  readonly rejected: RejectedRecord[];
}

const maxIssues = 5;
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The compiled validator of a schema, compiled on first use and cached for the process. */
export function validatorFor<T extends TSchema>(schema: T): TypeCheck<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check as TypeCheck<T>;
}

/** The first problems of an invalid value, with their paths (`/totals/net`). */
export function validationIssues(check: TypeCheck<TSchema>, value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of check.Errors(value)) {
    issues.push({ path: error.path, message: error.message });
    if (issues.length >= maxIssues) break;
  }
  return issues;
}

/** Validates each record; unknown extra fields pass, wrong known fields reject that record only. */
export function splitRecords<T extends TSchema>(
  schema: T,
  values: readonly unknown[],
): RecordBatch<Static<T>> {
  const check = validatorFor(schema);
  const items: Static<T>[] = [];
  const rejected: RejectedRecord[] = [];
  for (const value of values) {
    if (check.Check(value)) items.push(value);
    else rejected.push({ record: value, issues: validationIssues(check, value) });
  }
  return { items, rejected };
}

/** Validates one value or throws ResponseValidationError naming `what` and the paths. */
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
