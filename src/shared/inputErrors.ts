// The one way a schema problem becomes a sentence: every transport (HTTP API, IPC, browser mode, CLI)
// parses its input with a zod schema and reports the first issue through here, as invalid_request
// naming the offending key. The audience keys get the wording of decisions.md.
import type { z } from 'zod';
import { AppError } from './errors';
import { fieldByName } from './fields';
import { LIST_CONTROL_SHAPES } from './listControls';

function invalid(message: string, field?: string): AppError {
  return new AppError('invalid_request', message, field);
}

/** How many characters of a caller's text an error may repeat (docs/api.md, "error messages"). */
export const QUOTE_MAX = 40;

/**
 * `text` cut to `max` characters, with "…" when it was longer; never in the middle of a surrogate
 * pair. An error answer repeats no more of what the caller sent than this, keys included.
 */
export function cut(text: string, max = QUOTE_MAX): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/**
 * A caller's value as a message quotes it: a string as JSON, cut to 40 characters; a number, boolean
 * or null as it is. An array or object is not spelt out (it may be nested deeper than JSON.stringify can go).
 */
export function quoted(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(cut(value));
  if (value === null || typeof value !== 'object') return cut(String(value));
  return Array.isArray(value) ? '[…]' : '{…}';
}

/** The JSON type of a value, with its article, for "must be X, not Y". */
function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A limit, skip or other count that is not a whole number from `min` to 2^53 - 1. */
export function wholeNumberMessage(key: string, value: unknown, min = 0): string {
  if (typeof value === 'number' && value > Number.MAX_SAFE_INTEGER)
    return `"${key}" is too large: it must be a whole number from ${min} to ${Number.MAX_SAFE_INTEGER}.`;
  return `"${key}" must be a whole number of ${min} or more.`;
}

/** Why LATITUDE and LONGITUDE take no filter: distance is the `near` key's. */
export function coordinateFilterMessage(name: string): string {
  return (
    `${name} cannot be filtered by value; to keep people within a distance of a point or a ZIP, use the "near" key: ` +
    '{"lat": n, "lon": n, "miles": n} or {"zip": "5 digits", "miles": n}.'
  );
}

/** The filter values a field takes, for a message: its name if known, else both kinds. */
function filterValueKinds(name: unknown): string {
  const def = typeof name === 'string' ? fieldByName(name) : undefined;
  if (!def) return 'strings, or for an integer field whole numbers too';
  return def.type === 'integer' ? 'strings (N, LO-HI or N+, such as "25-29" or "65+") or whole numbers' : 'strings';
}

/** A filter's values of the wrong JSON type: which types its field takes, and what was sent. */
function describeFilterValues(issue: z.core.$ZodIssue, input: unknown): AppError {
  const [, i, , j] = issue.path;
  const position = Number(i) + 1;
  const entry = (input as { filters?: unknown[] } | undefined)?.filters?.[Number(i)];
  const name = Array.isArray(entry) ? entry[0] : undefined;
  const def = typeof name === 'string' ? fieldByName(name) : undefined;
  if (def?.type === 'number') return invalid(coordinateFilterMessage(def.name), def.name);
  const kinds = filterValueKinds(name);
  const field = def?.name ?? 'filters';
  if (j === undefined) return invalid(`Filter ${position} must have a non-empty array of values: ${kinds}.`, field);
  const value = issue.input;
  const whose = def ? `for ${def.name} ` : '';
  const sent = value !== null && typeof value === 'object' ? jsonKind(value) : `${jsonKind(value)} (${quoted(value)})`;
  return invalid(`Filter ${position} values ${whose}must be ${kinds}, not ${sent}.`, field);
}

function article(expected: string): string {
  if (expected === 'int') return 'a whole number';
  return expected === 'array' || expected === 'object' ? `an ${expected}` : `a ${expected}`;
}

/** Sentences for the keys of an audience request, whatever operation carries it (`input`: the whole input). */
function describeAudienceKey(issue: z.core.$ZodIssue, input: unknown): AppError | undefined {
  const [root, i, part] = issue.path;
  switch (root) {
    case 'state':
      if (issue.input === undefined) return invalid('"state" is required: a two-letter USPS code of one of the 50 states or DC.', 'state');
      return invalid(
        `"state" must be a string (a two-letter USPS code of one of the 50 states or DC), not ${jsonKind(issue.input)}.`,
        'state',
      );
    case 'limit':
    case 'skip':
      return invalid(wholeNumberMessage(root, issue.input), root);
    case 'filters':
      if (i === undefined) return invalid('"filters" must be an array of [name, [values...]] pairs.', 'filters');
      if (part === 1) return describeFilterValues(issue, input);
      return invalid(`Filter ${Number(i) + 1} must be a pair [name, [values...]].`, 'filters');
    case 'near':
    case 'contact':
    case 'exclude':
    case 'households':
    case 'sample':
      return invalid(LIST_CONTROL_SHAPES[root], root);
    default:
      return undefined;
  }
}

/**
 * The first issue of a failed parse as an AppError; `keys` are the input's allowed top-level keys,
 * `input` the input itself (for a filter's field name). An unknown key is quoted cut to 40
 * characters, and `field` carries that same cut text: a caller's key of any length never comes back whole.
 */
export function describeIssue(issue: z.core.$ZodIssue, keys: readonly string[], input?: unknown): AppError {
  if (issue.code === 'unrecognized_keys' && issue.path.length === 0) {
    const key = cut(issue.keys[0] ?? '');
    return invalid(`Unknown request field ${JSON.stringify(key)}; the fields are ${keys.join(', ')}.`, key);
  }
  const audience = describeAudienceKey(issue, input);
  if (audience) return audience;
  const field = issue.path[0] !== undefined ? cut(String(issue.path[0])) : undefined;
  const where = issue.path.length ? JSON.stringify(issue.path.map((p) => cut(String(p))).join('.')) : 'The input';
  switch (issue.code) {
    case 'unrecognized_keys':
      return invalid(`${where} has an unknown key ${quoted(issue.keys[0] ?? '')}.`, field);
    case 'invalid_type':
      return invalid(issue.input === undefined ? `${where} is required.` : `${where} must be ${article(issue.expected)}.`, field);
    case 'too_small':
      return invalid(`${where} is too small (at least ${String(issue.minimum)}).`, field);
    case 'too_big':
      return invalid(`${where} is too large (at most ${String(issue.maximum)}).`, field);
    case 'invalid_value':
      return invalid(`${where} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}.`, field);
    default:
      return invalid(`${where} is not valid.`, field);
  }
}

/** Parses `input` with `schema` or throws the first problem as invalid_request. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  throw describeIssue(result.error.issues[0]!, shape ? Object.keys(shape) : [], input);
}
