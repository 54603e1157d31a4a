import * as v from 'valibot';
import { AppError } from './errors.ts';
import { compileGuard, type Guard, UnsupportedSchemaError } from './fast-guard.ts';

/** The dotted path of a valibot issue (`p.plan`), or the unknown key for a strict-object error. */
export function issuePath(issue: v.BaseIssue<unknown>): string {
  const parts = (issue.path ?? []).map((p) => String(p.key));
  // strictObject reports an unknown key with the key itself as the last path item
  return parts.join('.') || '(body)';
}

/** Compiled guards per schema; null for a schema the guard compiler does not know. */
const guards = new WeakMap<v.GenericSchema, Guard | null>();

function guardFor(schema: v.GenericSchema): Guard | null {
  let guard = guards.get(schema);
  if (guard === undefined) {
    try {
      guard = compileGuard(schema);
    } catch (e) {
      if (!(e instanceof UnsupportedSchemaError)) throw e;
      guard = null;
    }
    guards.set(schema, guard);
  }
  return guard;
}

/**
 * Validates `input` against a valibot schema; on failure throws a 400 AppError whose message and
 * `field` name the first offending field. Input the schema's compiled guard passes (fast-guard.ts)
 * is returned as it is, without valibot's copy; valibot checks the rest and words the error.
 *
 * @example
 * const body = parseInput(IngestEventSchema, json, 'invalid_body');
 */
export function parseInput<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  code: 'invalid_body' | 'invalid_parameter' = 'invalid_body',
): v.InferOutput<S> {
  if (guardFor(schema)?.(input)) return input as v.InferOutput<S>;
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const field = issuePath(issue);
  const message =
    issue.expected === 'never'
      ? `unknown field ${field}`
      : issue.received === 'undefined'
        ? `${field} is required`
        : `${field}: ${issue.message}`;
  throw new AppError(code, message, { field });
}
