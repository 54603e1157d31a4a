import * as v from 'valibot';
import { AppError } from './errors.ts';

/** The dotted path of a valibot issue (`p.plan`), or the unknown key for a strict-object error. */
export function issuePath(issue: v.BaseIssue<unknown>): string {
  const parts = (issue.path ?? []).map((p) => String(p.key));
  // strictObject reports an unknown key with the key itself as the last path item
  return parts.join('.') || '(body)';
}

/**
 * Validates `input` against a valibot schema; on failure throws a 400 AppError whose message and
 * `field` name the first offending field.
 *
 * @example
 * const body = parseInput(IngestEventSchema, json, 'invalid_body');
 */
export function parseInput<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  code: 'invalid_body' | 'invalid_parameter' = 'invalid_body',
): v.InferOutput<S> {
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
