// The request of both audience operations: its schema (zod) and the rules of decisions.md that
// turn a raw body into a normalized audience the core can trust. Pure: used by the server, the
// IPC bridge, the CLI and the renderer alike.
import { z } from 'zod';
import { AppError } from './errors';
import { FIELDS, FIELD_NAMES, fieldIndex } from './fields';
import { coordinateFilterMessage, parseWith, wholeNumberMessage } from './inputErrors';
import { listControlKeys, normalizeListControls, type ListControls } from './listControls';
import { isStateCode } from './states';

export const LIMIT_DEFAULT = 25;
export const LIMIT_MAX = 1000;
export const FILTERS_MAX = 64;
export const FILTER_VALUES_MAX = 1000;
export const FILTER_VALUE_LENGTH_MAX = 256;

const filterValueSchema = z.union([z.string(), z.number()]);
const filterSchema = z.tuple([z.string(), z.array(filterValueSchema)]);

/**
 * An audience: a state and its filters (decisions.md) and the optional list controls of
 * extensions.md; every operation on audiences carries these keys.
 */
export const audienceSchema = z.strictObject({
  state: z.string(),
  filters: z.array(filterSchema).optional(),
  ...listControlKeys,
});

/** The body of both API operations (and the app's preview and search): an audience and a page. */
export const audienceRequestSchema = audienceSchema.extend({
  limit: z.number().optional(),
  skip: z.number().optional(),
});

export type AudienceInput = z.infer<typeof audienceSchema>;
export type AudienceRequest = z.infer<typeof audienceRequestSchema>;
export type RawFilter = [string, Array<string | number>];

/** A value of an integer filter: an inclusive band; `hi` is Infinity for `N+`. */
export interface IntBand {
  lo: number;
  hi: number;
}

export type NormalizedFilter =
  { field: string; index: number; kind: 'string'; values: string[] } | { field: string; index: number; kind: 'integer'; bands: IntBand[] };

export interface NormalizedAudience {
  state: string;
  limit: number;
  skip: number;
  filters: NormalizedFilter[];
  /** extensions.md's optional keys; the audience service resolves their exclusions for an engine. */
  listControls: ListControls;
}

function invalid(message: string, field?: string): AppError {
  return new AppError('invalid_request', message, field);
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * The known field name nearest to a mistyped one, if it is close enough to be a likely typo: at most
 * 2 edits (or a third of its length) away, and fewer edits than it has characters, so an empty or
 * one-letter name gets no suggestion (docs/api.md).
 */
export function closestFieldName(name: string): string | undefined {
  const upper = name.toUpperCase().slice(0, 64);
  let best: string | undefined;
  let bestDistance = Math.min(Math.max(2, Math.floor(upper.length / 3)) + 1, upper.length);
  for (const candidate of FIELD_NAMES) {
    const d = levenshtein(upper, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best;
}

const INT_EXACT = /^\d{1,15}$/;
const INT_BAND = /^(\d{1,15})-(\d{1,15})$/;
const INT_AT_LEAST = /^(\d{1,15})\+$/;

function shown(value: string | number): string {
  const text = String(value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function parseIntBand(field: string, value: string | number): IntBand {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return { lo: value, hi: value };
    throw invalid(`Filter value ${shown(value)} for ${field} is not a whole number of 0 or more.`, field);
  }
  let m = INT_EXACT.exec(value);
  if (m) return { lo: Number(value), hi: Number(value) };
  m = INT_BAND.exec(value);
  if (m) {
    const lo = Number(m[1]);
    const hi = Number(m[2]);
    if (lo > hi) throw invalid(`Filter value ${shown(value)} for ${field} is a band whose low end is above its high end.`, field);
    return { lo, hi };
  }
  m = INT_AT_LEAST.exec(value);
  if (m) return { lo: Number(m[1]), hi: Infinity };
  throw invalid(`Filter value ${shown(value)} for ${field} must be N, LO-HI or N+ (for example 25-29 or 65+).`, field);
}

function normalizeFilter(raw: RawFilter, position: number): NormalizedFilter {
  const [name, values] = raw;
  const index = fieldIndex(name);
  if (index < 0) {
    const near = closestFieldName(name);
    throw invalid(`Filter ${position} names an unknown field ${shown(name)}${near ? `; did you mean ${near}?` : '.'}`, 'filters');
  }
  const def = FIELDS[index]!;
  if (values.length === 0 || values.length > FILTER_VALUES_MAX)
    throw invalid(`Filter on ${def.name} must have between 1 and ${FILTER_VALUES_MAX} values.`, def.name);
  if (def.type === 'number') throw invalid(coordinateFilterMessage(def.name), def.name);
  if (def.type === 'integer') {
    return { field: def.name, index, kind: 'integer', bands: values.map((v) => parseIntBand(def.name, v)) };
  }
  const strings = values.map((v) => {
    if (typeof v !== 'string') throw invalid(`Filter values for ${def.name} must be strings, such as "${v}".`, def.name);
    if (v.length > FILTER_VALUE_LENGTH_MAX)
      throw invalid(`A filter value for ${def.name} is longer than ${FILTER_VALUE_LENGTH_MAX} characters.`, def.name);
    return v.toUpperCase();
  });
  return { field: def.name, index, kind: 'string', values: [...new Set(strings)].sort() };
}

/**
 * The rules of decisions.md beyond the schema's shape: a known state, whole non-negative limit and
 * skip, known fields and well-formed values. Input that passed audienceSchema or audienceRequestSchema.
 */
export function normalizeAudience(input: AudienceInput & { limit?: number; skip?: number }): NormalizedAudience {
  const { state, limit, skip, filters = [], ...controls } = input;
  if (!isStateCode(state))
    throw invalid(`Unknown state ${shown(state)}: use a two-letter USPS code of one of the 50 states or DC.`, 'state');
  for (const [key, value] of [
    ['limit', limit],
    ['skip', skip],
  ] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) throw invalid(wholeNumberMessage(key, value), key);
  }
  if (filters.length > FILTERS_MAX) throw invalid(`At most ${FILTERS_MAX} filters are allowed.`, 'filters');
  return {
    state: state.toUpperCase(),
    limit: Math.min(limit ?? LIMIT_DEFAULT, LIMIT_MAX),
    skip: skip ?? 0,
    filters: filters.map((f, i) => normalizeFilter(f as RawFilter, i + 1)),
    listControls: normalizeListControls(controls),
  };
}

/** A raw request body (HTTP, CLI): a JSON object, then the schema, then the rules. */
export function normalizeAudienceRequest(body: unknown): NormalizedAudience {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError('invalid_json', 'The request body must be a JSON object.');
  return normalizeAudience(parseWith(audienceRequestSchema, body));
}

/** A stable text for an audience's state and filters: the key of result caches. */
export function audienceKey(a: Pick<NormalizedAudience, 'state' | 'filters'>): string {
  const parts = a.filters
    .map((f) =>
      f.kind === 'string'
        ? `${f.index}=s:${JSON.stringify(f.values)}`
        : `${f.index}=i:${f.bands
            .map((b) => `${b.lo}-${b.hi}`)
            .sort()
            .join(',')}`,
    )
    .sort();
  return `${a.state}|${parts.join('&')}`;
}
