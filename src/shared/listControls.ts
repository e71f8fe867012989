// The list controls of docs/interface.md ("Optional request keys"): optional request keys that narrow an audience
// the way a list broker's order form does (callable or mailable people, exclusions, one person per
// household, a sample). Their names and meanings are fixed there; this module holds their schemas,
// their normalized form and the text that keys caches. Pure: the server, the app and the CLI use it.
import { z } from 'zod';
import { AppError } from './errors';

export const EXCLUDE_MAX = 32;
/** `like`: a seed with fewer people than this in the state is refused (extensions.md). */
export const LIKE_SEED_MIN = 30;

export const contactSchema = z.strictObject({ phone: z.literal('callable').optional(), mail: z.literal('deliverable').optional() });
export const sampleSchema = z.union([z.strictObject({ every: z.number() }), z.strictObject({ size: z.number(), seed: z.number() })]);
export const nearSchema = z.union([
  z.strictObject({ lat: z.number(), lon: z.number(), miles: z.number() }),
  z.strictObject({ zip: z.string(), miles: z.number() }),
]);

export const likeSchema = z.strictObject({ seed: z.string(), top: z.number() });

/** docs/interface.md (`near`): great-circle distance on a sphere of this radius. */
export const EARTH_RADIUS_MILES = 3958.8;
export const NEAR_MILES_MAX = 500;

/** The keys as they appear in a request (added to the audience schemas in audienceRequest.ts). */
export const listControlKeys = {
  near: nearSchema.optional(),
  contact: contactSchema.optional(),
  exclude: z.array(z.string()).optional(),
  include: z.array(z.string()).optional(),
  like: likeSchema.optional(),
  households: z.enum(['all', 'one']).optional(),
  sample: sampleSchema.optional(),
};

export type ContactInput = z.infer<typeof contactSchema>;
export type SampleInput = z.infer<typeof sampleSchema>;
export type NearInput = z.infer<typeof nearSchema>;
export type LikeInput = z.infer<typeof likeSchema>;

export interface ListControlsInput {
  near?: NearInput;
  contact?: ContactInput;
  exclude?: string[];
  include?: string[];
  like?: LikeInput;
  households?: 'all' | 'one';
  sample?: SampleInput;
}

/** `exports-since` names every export finished on or after a day (`id` is that day, YYYY-MM-DD, the machine's local date). */
export type ExcludeKind = 'saved' | 'list' | 'export' | 'exports-since';
export interface ExcludeRef {
  kind: ExcludeKind;
  id: string;
}
/** `like`: the seed (not `exports-since:`, a day is no set of people to learn from) and how many to keep. */
export interface Like {
  seed: ExcludeRef;
  top: number;
}
export type Sample = { every: number } | { size: number; seed: number };

/** Within `miles` of a point, or of a ZIP's centre (the service finds it in the dataset). */
export type Near = { lat: number; lon: number; miles: number } | { zip: string; miles: number };

export interface ListControls {
  near: Near | null;
  contact: { phone: boolean; mail: boolean };
  /** Distinct, in the order given. */
  exclude: ExcludeRef[];
  /** Distinct, in the order given: only the people of at least one of them. */
  include: ExcludeRef[];
  /** Lookalikes of a seed's people (docs/insight.md). */
  like: Like | null;
  households: 'all' | 'one';
  sample: Sample | null;
}

export const NO_LIST_CONTROLS: ListControls = Object.freeze({
  near: null,
  contact: Object.freeze({ phone: false, mail: false }),
  exclude: [],
  include: [],
  like: null,
  households: 'all',
  sample: null,
}) as ListControls;

const EXCLUDE_REF = /^(saved|list|export|exports-since):([A-Za-z0-9_-]{1,64})$/;

/** Whether `YYYY-MM-DD` is a day of the calendar (2026-02-30 is not). */
export function isCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

/** The schema's words for each key, when its shape is wrong (inputErrors.ts uses them). */
export const LIST_CONTROL_SHAPES: Record<keyof typeof listControlKeys, string> = {
  near: `"near" must be {"lat": n, "lon": n, "miles": n} or {"zip": "5 digits", "miles": n}, with 0 < miles <= ${NEAR_MILES_MAX}.`,
  contact: '"contact" must be an object with "phone": "callable" and/or "mail": "deliverable".',
  exclude: `"exclude" must be an array of "saved:<id>", "list:<id>", "export:<id>" or "exports-since:YYYY-MM-DD".`,
  include: `"include" must be an array of "saved:<id>", "list:<id>" or "export:<id>".`,
  like: '"like" must be {"seed": "saved:<id>" | "list:<id>" | "export:<id>", "top": n}, with n a whole number of 1 or more.',
  households: '"households" must be "all" or "one".',
  sample: '"sample" must be {"every": n} or {"size": n, "seed": s}, whole numbers with n at least 1.',
};

function invalid(key: keyof typeof listControlKeys, message = LIST_CONTROL_SHAPES[key]): AppError {
  return new AppError('invalid_request', message, key);
}

function wholeNumber(value: number, min: number): boolean {
  return Number.isSafeInteger(value) && value >= min;
}

/** A sample number out of range: the whole range, as the OpenAPI document gives it (2^53 - 1 at most). */
function sampleRange(key: 'every' | 'size' | 'seed'): AppError {
  const min = key === 'seed' ? -Number.MAX_SAFE_INTEGER : 1;
  return invalid('sample', `"sample.${key}" must be a whole number from ${min} to ${Number.MAX_SAFE_INTEGER}.`);
}

/** The rules beyond the schema's shape: whole numbers, a non-empty contact rule, well-formed exclusions. */
function normalizeNear(near: NearInput | undefined): Near | null {
  if (!near) return null;
  if (!(Number.isFinite(near.miles) && near.miles > 0 && near.miles <= NEAR_MILES_MAX)) throw invalid('near');
  if ('zip' in near) {
    if (!/^\d{5}$/.test(near.zip)) throw invalid('near', `"near.zip" must be 5 digits, not ${JSON.stringify(near.zip.slice(0, 40))}.`);
    return { zip: near.zip, miles: near.miles };
  }
  if (!(Number.isFinite(near.lat) && Math.abs(near.lat) <= 90 && Number.isFinite(near.lon) && Math.abs(near.lon) <= 180))
    throw invalid('near', '"near.lat" must be within -90..90 and "near.lon" within -180..180 degrees.');
  return { lat: near.lat, lon: near.lon, miles: near.miles };
}

/** The entries of `exclude` or `include`: well-formed, at most EXCLUDE_MAX, distinct in the order given. */
function normalizeRefs(key: 'exclude' | 'include', texts: readonly string[]): ExcludeRef[] {
  if (texts.length > EXCLUDE_MAX) throw invalid(key, `"${key}" names at most ${EXCLUDE_MAX} lists.`);
  const refs: ExcludeRef[] = [];
  for (const text of texts) {
    const m = EXCLUDE_REF.exec(text);
    if (!m)
      throw invalid(
        key,
        `"${key}" entry ${JSON.stringify(text.slice(0, 40))} is not "saved:<id>", "list:<id>", "export:<id>" or "exports-since:YYYY-MM-DD".`,
      );
    if (m[1] === 'exports-since' && !isCalendarDate(m[2]!))
      throw invalid(
        key,
        `"${key}" entry ${JSON.stringify(text.slice(0, 40))} does not name a day: use "exports-since:YYYY-MM-DD", a real date.`,
      );
    if (!refs.some((r) => r.kind === m[1] && r.id === m[2])) refs.push({ kind: m[1] as ExcludeKind, id: m[2]! });
  }
  return refs;
}

function normalizeLike(like: LikeInput | undefined): Like | null {
  if (!like) return null;
  const m = EXCLUDE_REF.exec(like.seed);
  if (!m || !['saved', 'list', 'export'].includes(m[1]!)) throw invalid('like');
  if (!wholeNumber(like.top, 1)) throw invalid('like', `"like.top" must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}.`);
  return { seed: { kind: m[1] as ExcludeKind, id: m[2]! }, top: like.top };
}

export function normalizeListControls(input: ListControlsInput): ListControls {
  const { near, contact, exclude = [], include = [], like, households = 'all', sample } = input;
  if (contact && !contact.phone && !contact.mail) throw invalid('contact');
  const refs = normalizeRefs('exclude', exclude);
  let normalizedSample: Sample | null = null;
  if (sample && 'every' in sample) {
    if (!wholeNumber(sample.every, 1)) throw sampleRange('every');
    normalizedSample = { every: sample.every };
  } else if (sample) {
    if (!wholeNumber(sample.size, 1)) throw sampleRange('size');
    if (!Number.isSafeInteger(sample.seed)) throw sampleRange('seed');
    normalizedSample = { size: sample.size, seed: sample.seed };
  }
  return {
    near: normalizeNear(near),
    contact: { phone: contact?.phone === 'callable', mail: contact?.mail === 'deliverable' },
    exclude: refs,
    include: normalizeRefs('include', include),
    like: normalizeLike(like),
    households,
    sample: normalizedSample,
  };
}

export function hasListControls(c: ListControls): boolean {
  return (
    c.near !== null ||
    c.contact.phone ||
    c.contact.mail ||
    c.exclude.length > 0 ||
    c.include.length > 0 ||
    c.like !== null ||
    c.households === 'one' ||
    c.sample !== null
  );
}

/** The controls as request keys again (saved audiences, snippets): only the keys that do something. */
export function listControlsInput(c: ListControls): ListControlsInput {
  const out: ListControlsInput = {};
  if (c.near) out.near = { ...c.near };
  if (c.contact.phone || c.contact.mail)
    out.contact = {
      ...(c.contact.phone ? { phone: 'callable' as const } : {}),
      ...(c.contact.mail ? { mail: 'deliverable' as const } : {}),
    };
  if (c.exclude.length) out.exclude = c.exclude.map((r) => `${r.kind}:${r.id}`);
  if (c.include.length) out.include = c.include.map((r) => `${r.kind}:${r.id}`);
  if (c.like) out.like = { seed: `${c.like.seed.kind}:${c.like.seed.id}`, top: c.like.top };
  if (c.households === 'one') out.households = 'one';
  if (c.sample) out.sample = { ...c.sample };
  return out;
}

/** A stable text for the controls: part of the key of result caches. */
export function listControlsKey(c: ListControls): string {
  return hasListControls(c) ? JSON.stringify(listControlsInput(c)) : '';
}
