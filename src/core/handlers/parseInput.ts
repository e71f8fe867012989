// Input checking at the edge of the handler table: every input is parsed with the contract's schema
// before a handler sees it, and the first problem becomes one readable invalid_request.
import type { z } from 'zod';
import { INPUTS, type InputOf, type OperationName } from '../../shared/contract';
import { AppError } from '../../shared/errors';

function describe(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? `"${issue.path.map(String).join('.')}"` : 'The input';
  switch (issue.code) {
    case 'unrecognized_keys':
      return `Unknown input field "${issue.keys[0] ?? ''}".`;
    case 'invalid_type':
      return issue.input === undefined ? `${where} is required.` : `${where} must be ${article(issue.expected)}.`;
    case 'too_small':
      return `${where} is too small (at least ${String(issue.minimum)}).`;
    case 'too_big':
      return `${where} is too large (at most ${String(issue.maximum)}).`;
    case 'invalid_value':
      return `${where} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}.`;
    default:
      return `${where} is not valid.`;
  }
}

function article(expected: string): string {
  if (expected === 'array' || expected === 'object' || expected === 'int') return expected === 'int' ? 'a whole number' : `an ${expected}`;
  return `a ${expected}`;
}

export function parseInput<K extends OperationName>(operation: K, input: unknown): InputOf<K> {
  // IPC and JSON both may carry `undefined` for "no input"; operations without fields accept it.
  const result = INPUTS[operation].safeParse(input === undefined ? {} : input, { reportInput: true });
  if (result.success) return result.data as InputOf<K>;
  const issue = result.error.issues[0]!;
  const field = issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path[0] !== undefined ? String(issue.path[0]) : undefined;
  throw new AppError('invalid_request', `${operation}: ${describe(issue)}`, field);
}
