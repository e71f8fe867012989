// Overlap of 2 to 5 sets of people (docs/insight.md): saved audiences, lists or earlier exports of one
// state, how many people each pair and each combination share. The request, its normalized form, the
// answer's shape and its CSV. Pure: the server, the app and the CLI use it.
import { z } from 'zod';
import { AppError } from './errors';
import { parseWith } from './inputErrors';
import { normalizeListControls, type ExcludeRef } from './listControls';
import { isStateCode } from './states';

export const OVERLAP_SETS_MIN = 2;
export const OVERLAP_SETS_MAX = 5;

export const overlapRequestSchema = z.strictObject({ state: z.string(), sets: z.array(z.string()) });

export interface OverlapRequest {
  state: string;
  /** Distinct, in the order asked. */
  sets: ExcludeRef[];
}

export interface OverlapRegion {
  /** The indexes (into `sets`) of the sets these people are in; they are in none of the others. */
  in: number[];
  count: number;
}

export interface OverlapAnswer {
  state: string;
  sets: Array<{ ref: string; total: number }>;
  /** pairs[a][b]: the people in both set a and set b (the diagonal: each set's people in the state). */
  pairs: number[][];
  /** Every combination of the sets (2^n - 1), smallest first, then in the sets' order. */
  regions: OverlapRegion[];
}

const invalidSets = (message: string) => new AppError('invalid_request', message, 'sets');

export function normalizeOverlapRequest(body: unknown): OverlapRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError('invalid_json', 'The request body must be a JSON object.');
  const { state, sets } = parseWith(overlapRequestSchema, body);
  if (!isStateCode(state)) throw new AppError('invalid_request', `Unknown state ${JSON.stringify(state.slice(0, 40))}.`, 'state');
  let refs: ExcludeRef[];
  try {
    refs = normalizeListControls({ include: sets }).include;
  } catch {
    throw invalidSets('"sets" must be an array of "saved:<id>", "list:<id>" or "export:<id>".');
  }
  if (refs.length < OVERLAP_SETS_MIN || refs.length > OVERLAP_SETS_MAX)
    throw invalidSets(`"sets" must name ${OVERLAP_SETS_MIN} to ${OVERLAP_SETS_MAX} different saved audiences, lists or exports.`);
  return { state: state.toUpperCase(), sets: refs };
}

/** Every combination of n sets as index lists: smallest first, then in the sets' order (1, 2, 1+2, …). */
export function combinations(n: number): number[][] {
  const all: number[][] = [];
  for (let mask = 1; mask < 1 << n; mask++) all.push(Array.from({ length: n }, (_, k) => k).filter((k) => mask & (1 << k)));
  return all.sort((a, b) => a.length - b.length || a.join(',').localeCompare(b.join(','), 'en', { numeric: true }));
}

const csvCell = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * The overlap as CSV: the matrix of pairs (a header row of the sets' names), a blank line, then one
 * row a combination: a column a set (1 when inside), and the count of people in exactly those sets.
 */
export function overlapCsv(answer: OverlapAnswer, names: readonly string[]): string {
  const lines = [['', ...names].map(csvCell).join(',')];
  answer.pairs.forEach((row, a) => lines.push([csvCell(names[a]!), ...row.map(String)].join(',')));
  lines.push('');
  lines.push([...names, 'people'].map(csvCell).join(','));
  for (const region of answer.regions)
    lines.push([...names.map((_, k) => (region.in.includes(k) ? '1' : '0')), String(region.count)].join(','));
  return lines.join('\r\n') + '\r\n';
}
