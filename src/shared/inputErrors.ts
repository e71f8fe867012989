// The one way a schema problem becomes a sentence: every transport (HTTP API, IPC, browser mode, CLI)
// parses its input with a zod schema and reports the first issue through here, as invalid_request
// naming the offending key. The audience keys get the wording of decisions.md.
import type { z } from 'zod';
import { AppError } from './errors';
import { LIST_CONTROL_SHAPES } from './listControls';

function invalid(message: string, field?: string): AppError {
  return new AppError('invalid_request', message, field);
}

function article(expected: string): string {
  if (expected === 'int') return 'a whole number';
  return expected === 'array' || expected === 'object' ? `an ${expected}` : `a ${expected}`;
}

/** Sentences for the keys of an audience request, whatever operation carries it. */
function describeAudienceKey(issue: z.core.$ZodIssue): AppError | undefined {
  const [root, i, part] = issue.path;
  switch (root) {
    case 'state':
      return invalid('"state" is required: a two-letter USPS code of one of the 50 states or DC.', 'state');
    case 'limit':
    case 'skip':
      return invalid(`"${root}" must be a whole number of 0 or more.`, root);
    case 'filters':
      if (i === undefined) return invalid('"filters" must be an array of [name, [values...]] pairs.', 'filters');
      if (part === 1) return invalid(`Filter ${Number(i) + 1} must have a non-empty array of string values.`, 'filters');
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

/** The first issue of a failed parse as an AppError; `keys` are the input's allowed top-level keys. */
export function describeIssue(issue: z.core.$ZodIssue, keys: readonly string[]): AppError {
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return invalid(`Unknown request field "${key}"; the fields are ${keys.join(', ')}.`, key);
  }
  const audience = describeAudienceKey(issue);
  if (audience) return audience;
  const field = issue.path[0] !== undefined ? String(issue.path[0]) : undefined;
  const where = issue.path.length ? `"${issue.path.map(String).join('.')}"` : 'The input';
  switch (issue.code) {
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
  throw describeIssue(result.error.issues[0]!, shape ? Object.keys(shape) : []);
}
