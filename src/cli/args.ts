// Argument parsing for the CLI (node:util parseArgs, strict): a bad argument is a UsageError,
// which the entry point prints as one line and exits with status 2.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;

export function parse(
  argv: string[],
  options: Options,
  positionals = 0,
): { values: Record<string, string | undefined>; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: positionals > 0 });
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0]);
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`Unexpected argument "${parsed.positionals[positionals]}"`);
  return { values: parsed.values as Record<string, string | undefined>, positionals: parsed.positionals };
}

export function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function wholeNumber(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`--${name} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, not "${value}"`);
  return Number(value);
}

/** A command's one positional argument (an id), or a UsageError saying `missing`. */
export function onePositional(
  argv: string[],
  options: Options,
  missing: string,
): { values: Record<string, string | undefined>; value: string } {
  const { values, positionals } = parse(argv, options, 1);
  if (!positionals[0]) throw new UsageError(missing);
  return { values, value: positionals[0] };
}
