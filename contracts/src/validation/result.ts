/**
 * Validation results and plain-words field errors (docs/product.md, Ingestion and API conventions: `"<field>: <what is wrong>"`).
 */
import type { z } from 'zod';

/** One thing wrong with an input: a dotted path with array indexes in brackets, and what is wrong. */
export interface FieldError {
  /** e.g. `data.checkout.lineItems[2].quantity`; the root's name (`event`, `order`, ...) for the whole input. */
  field: string;
  /** e.g. `is required`, `must be a number, got string`. */
  message: string;
}

/**
 * Outcome of a validation: the normalized value with data-quality warnings, or every error found.
 * Warnings are `"<path> missing"` with `[*]` for array elements, so they make low-cardinality metric labels.
 */
export type ValidationResult<T> = { ok: true; value: T; warnings: string[] } | { ok: false; errors: FieldError[] };

/** `"<field>: <message>"`, the form of the API's error messages. */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

/** `['data', 'lines', 2, 'quantity']` -> `data.lines[2].quantity`; the empty path is `root`. */
export function formatPath(path: readonly PropertyKey[], root: string): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? root : out;
}

/** The JSON type of a value, in words: `string`, `number`, `boolean`, `null`, `array`, `object`. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return typeof value;
}

const MAX_PREVIEW = 60;

/** A short rendering of a scalar for messages (`"usd"`, `1.5`); empty for objects and arrays. */
function preview(value: unknown): string {
  if (typeof value === 'string') {
    const s = value.length > MAX_PREVIEW ? `${value.slice(0, MAX_PREVIEW)}...` : value;
    return JSON.stringify(s);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function got(value: unknown): string {
  const p = preview(value);
  return p === '' ? `, got ${describeType(value)}` : `, got ${p}`;
}

const ARTICLE: Record<string, string> = {
  int: 'an integer',
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

function expectedWords(expected: string): string {
  return ARTICLE[expected] ?? `a ${expected}`;
}

function bound(value: number | bigint): string {
  return typeof value === 'bigint' ? value.toString() : String(value);
}

/**
 * True for a message a schema of ours set (they all start with "must "); zod's own defaults never do.
 * Such a message also replaces the generic one of a type error (e.g. "must be a decimal string ...").
 */
function isOwnMessage(message: string): boolean {
  return message.startsWith('must ');
}

/** Plain-words message of one zod issue. Schemas set their own message for format and custom checks. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  // JSON has no `undefined`: an undefined input is a member that is not there.
  if (issue.input === undefined) return 'is required';
  switch (issue.code) {
    case 'invalid_type':
      if (isOwnMessage(issue.message)) return `${issue.message}, got ${describeType(issue.input)}`;
      if (issue.expected === 'int' && typeof issue.input === 'number') return `must be an integer${got(issue.input)}`;
      return `must be ${expectedWords(issue.expected)}, got ${describeType(issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${String(issue.values[0])}${got(issue.input)}`
        : `must be one of ${issue.values.map(String).join(', ')}${got(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string') {
        return issue.minimum === 1 ? 'must not be empty' : `must be at least ${bound(issue.minimum)} characters`;
      }
      if (issue.origin === 'array') return `must have at least ${bound(issue.minimum)} items`;
      if (issue.minimum === 0 && issue.inclusive !== false) return `must not be negative${got(issue.input)}`;
      return `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${bound(issue.minimum)}${got(issue.input)}`;
    case 'too_big':
      if (issue.origin === 'string') {
        const length = typeof issue.input === 'string' ? ` (got ${issue.input.length})` : '';
        return `must be at most ${bound(issue.maximum)} characters${length}`;
      }
      if (issue.origin === 'array') return `must have at most ${bound(issue.maximum)} items`;
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${bound(issue.maximum)}${got(issue.input)}`;
    case 'invalid_format':
    case 'invalid_union':
    case 'custom':
      return `${issue.message}${got(issue.input)}`;
    case 'not_multiple_of':
    case 'unrecognized_keys':
    case 'invalid_key':
    case 'invalid_element':
      return issue.message;
  }
}

/** Field errors of zod issues; `prefix` is prepended to every path (e.g. `['data']`). */
function toFieldErrors(
  issues: readonly z.core.$ZodIssue[],
  root: string,
  prefix: readonly PropertyKey[] = [],
): FieldError[] {
  return issues.map((issue) => ({ field: formatPath([...prefix, ...issue.path], root), message: issueMessage(issue) }));
}

/** Parse options every validator uses: issues keep their input so messages can say what was received. */
const PARSE_OPTIONS = { reportInput: true } as const;

/** Runs a schema and returns its value or the field errors. */
export function runSchema<T>(
  schema: z.ZodType<T>,
  input: unknown,
  root: string,
  prefix: readonly PropertyKey[] = [],
): { ok: true; value: T } | { ok: false; errors: FieldError[] } {
  const result = schema.safeParse(input, PARSE_OPTIONS);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, errors: toFieldErrors(result.error.issues, root, prefix) };
}
