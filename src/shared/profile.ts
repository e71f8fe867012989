// The profile of an audience (docs/insight.md; docs/interface.md, "The profile of an audience"): the
// request (the body of preview without limit and skip, and `fields`), its answer's shape, and the
// confidence the app and the CLI rank fields by. Pure: the server, the app and the CLI use it.
import { z } from 'zod';
import { audienceSchema, normalizeAudience, type NormalizedAudience } from './audienceRequest';
import { CODEBOOK } from './codebook';
import { AppError } from './errors';
import { FIELDS, fieldIndex } from './fields';
import { cut, parseWith } from './inputErrors';

export const profileRequestSchema = audienceSchema.extend({ fields: z.array(z.string()).optional() });

export interface ProfileValue {
  /** The code; AGE's band label; `""` for the empty value. */
  code: string;
  /** The codebook's meaning; the bare code for a code the codebook does not know (then `unknown` is true). */
  label: string;
  unknown?: true;
  count: number;
  share: number;
  baseCount: number;
  baseShare: number;
  /** round(100 * share / baseShare); null when baseShare is 0. */
  index: number | null;
}

export interface ProfileField {
  name: string;
  label: string;
  values: ProfileValue[];
}

export interface ProfileAnswer {
  total: number;
  base: { total: number };
  fields: ProfileField[];
}

/** The fields a profile may ask for: the coded fields of the dictionary and AGE, in catalog order. */
export const PROFILE_FIELDS: readonly string[] = FIELDS.filter((f) => f.name === 'AGE' || CODEBOOK[f.name]).map((f) => f.name);
/** The default: every coded field, in catalog order (AGE only when asked for). */
export const PROFILE_DEFAULT_FIELDS: readonly string[] = PROFILE_FIELDS.filter((name) => name !== 'AGE');

export interface ProfileRequest {
  audience: Omit<NormalizedAudience, 'limit' | 'skip'>;
  /** Catalog names, distinct, in the order asked. */
  fields: string[];
}

/** The catalog names of `fields`, checked: a field that is not coded (or unknown) is a 400 naming it. */
export function profileFields(fields: readonly string[] | undefined): string[] {
  if (fields === undefined) return [...PROFILE_DEFAULT_FIELDS];
  const out: string[] = [];
  for (const asked of fields) {
    const index = fieldIndex(asked);
    const name = index < 0 ? undefined : FIELDS[index]!.name;
    if (!name || !PROFILE_FIELDS.includes(name))
      throw new AppError(
        'invalid_request',
        `"fields" names ${JSON.stringify(cut(asked))}, which is not a coded field (a profile counts coded fields and AGE bands).`,
        'fields',
      );
    if (!out.includes(name)) out.push(name);
  }
  if (out.length === 0) throw new AppError('invalid_request', '"fields" must name at least one coded field.', 'fields');
  return out;
}

/** A raw request body (HTTP, CLI, IPC): a JSON object, the schema, then the rules of preview and of `fields`. */
export function normalizeProfileRequest(body: unknown): ProfileRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError('invalid_json', 'The request body must be a JSON object.');
  const { fields, ...audience } = parseWith(profileRequestSchema, body);
  const { limit: _limit, skip: _skip, ...normalized } = normalizeAudience(audience);
  return { audience: normalized, fields: profileFields(fields) };
}

/** A share rounded to 4 decimals, as the answer gives it. */
export const roundShare = (x: number): number => Math.round(x * 10_000) / 10_000;

/**
 * How sure a value's difference from the state is: the z-score of the audience's share against the
 * state's, |share - baseShare| / sqrt(baseShare (1 - baseShare) / total) (a one-sample test of a
 * proportion). An index of 300 over 12 people scores far lower than one of 150 over 12,000.
 */
export function valueConfidence(v: Pick<ProfileValue, 'count' | 'baseShare'>, total: number): number {
  if (total === 0 || v.baseShare <= 0 || v.baseShare >= 1) return 0;
  return Math.abs(v.count / total - v.baseShare) / Math.sqrt((v.baseShare * (1 - v.baseShare)) / total);
}

/** A field's strength for ranking: its values' largest confidence. */
export function fieldConfidence(field: ProfileField, total: number): number {
  return field.values.reduce((most, v) => Math.max(most, valueConfidence(v, total)), 0);
}

const csvCell = (text: string): string => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * The profile as CSV (the CLI's `--out FILE.csv`, the app's download): one row a value, fields in the
 * answer's order, with the field's confidence (fieldConfidence) so a spreadsheet can sort by it.
 */
export function profileCsv(answer: ProfileAnswer): string {
  const lines = ['field,field_label,code,label,count,share,base_count,base_share,index,confidence'];
  for (const field of answer.fields) {
    for (const v of field.values) {
      const confidence = Math.round(valueConfidence(v, answer.total) * 100) / 100;
      lines.push(
        [field.name, field.label, v.code, v.label, v.count, v.share, v.baseCount, v.baseShare, v.index ?? '', confidence]
          .map((x) => csvCell(String(x)))
          .join(','),
      );
    }
  }
  return lines.join('\r\n') + '\r\n';
}
