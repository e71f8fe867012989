// The list controls of ../shared/spec/extensions.md: optional request keys that narrow an audience
// the way a list broker's order form does (callable or mailable people, exclusions, one person per
// household, a sample). Their names and meanings are fixed there; this module holds their schemas,
// their normalized form and the text that keys caches. Pure: the server, the app and the CLI use it.
import { z } from 'zod';
import { AppError } from './errors';

export const EXCLUDE_MAX = 32;

export const contactSchema = z.strictObject({ phone: z.literal('callable').optional(), mail: z.literal('deliverable').optional() });
export const sampleSchema = z.union([z.strictObject({ every: z.number() }), z.strictObject({ size: z.number(), seed: z.number() })]);

/** The keys as they appear in a request (added to the audience schemas in audienceRequest.ts). */
export const listControlKeys = {
  contact: contactSchema.optional(),
  exclude: z.array(z.string()).optional(),
  households: z.enum(['all', 'one']).optional(),
  sample: sampleSchema.optional(),
};

export type ContactInput = z.infer<typeof contactSchema>;
export type SampleInput = z.infer<typeof sampleSchema>;

export interface ListControlsInput {
  contact?: ContactInput;
  exclude?: string[];
  households?: 'all' | 'one';
  sample?: SampleInput;
}

export type ExcludeKind = 'saved' | 'list' | 'export';
export interface ExcludeRef {
  kind: ExcludeKind;
  id: string;
}
export type Sample = { every: number } | { size: number; seed: number };

export interface ListControls {
  contact: { phone: boolean; mail: boolean };
  /** Distinct, in the order given. */
  exclude: ExcludeRef[];
  households: 'all' | 'one';
  sample: Sample | null;
}

export const NO_LIST_CONTROLS: ListControls = Object.freeze({
  contact: Object.freeze({ phone: false, mail: false }),
  exclude: [],
  households: 'all',
  sample: null,
}) as ListControls;

const EXCLUDE_REF = /^(saved|list|export):([A-Za-z0-9_-]{1,64})$/;

/** The schema's words for each key, when its shape is wrong (inputErrors.ts uses them). */
export const LIST_CONTROL_SHAPES: Record<keyof typeof listControlKeys, string> = {
  contact: '"contact" must be an object with "phone": "callable" and/or "mail": "deliverable".',
  exclude: `"exclude" must be an array of "saved:<id>", "list:<id>" or "export:<id>".`,
  households: '"households" must be "all" or "one".',
  sample: '"sample" must be {"every": n} or {"size": n, "seed": s}, whole numbers with n at least 1.',
};

function invalid(key: keyof typeof listControlKeys, message = LIST_CONTROL_SHAPES[key]): AppError {
  return new AppError('invalid_request', message, key);
}

function wholeNumber(value: number, min: number): boolean {
  return Number.isSafeInteger(value) && value >= min;
}

/** The rules beyond the schema's shape: whole numbers, a non-empty contact rule, well-formed exclusions. */
export function normalizeListControls(input: ListControlsInput): ListControls {
  const { contact, exclude = [], households = 'all', sample } = input;
  if (contact && !contact.phone && !contact.mail) throw invalid('contact');
  if (exclude.length > EXCLUDE_MAX) throw invalid('exclude', `"exclude" names at most ${EXCLUDE_MAX} lists.`);
  const refs: ExcludeRef[] = [];
  for (const text of exclude) {
    const m = EXCLUDE_REF.exec(text);
    if (!m)
      throw invalid('exclude', `"exclude" entry ${JSON.stringify(text.slice(0, 40))} is not "saved:<id>", "list:<id>" or "export:<id>".`);
    if (!refs.some((r) => r.kind === m[1] && r.id === m[2])) refs.push({ kind: m[1] as ExcludeKind, id: m[2]! });
  }
  let normalizedSample: Sample | null = null;
  if (sample && 'every' in sample) {
    if (!wholeNumber(sample.every, 1)) throw invalid('sample');
    normalizedSample = { every: sample.every };
  } else if (sample) {
    if (!wholeNumber(sample.size, 1) || !Number.isSafeInteger(sample.seed)) throw invalid('sample');
    normalizedSample = { size: sample.size, seed: sample.seed };
  }
  return {
    contact: { phone: contact?.phone === 'callable', mail: contact?.mail === 'deliverable' },
    exclude: refs,
    households,
    sample: normalizedSample,
  };
}

export function hasListControls(c: ListControls): boolean {
  return c.contact.phone || c.contact.mail || c.exclude.length > 0 || c.households === 'one' || c.sample !== null;
}

/** The controls as request keys again (saved audiences, snippets): only the keys that do something. */
export function listControlsInput(c: ListControls): ListControlsInput {
  const out: ListControlsInput = {};
  if (c.contact.phone || c.contact.mail)
    out.contact = {
      ...(c.contact.phone ? { phone: 'callable' as const } : {}),
      ...(c.contact.mail ? { mail: 'deliverable' as const } : {}),
    };
  if (c.exclude.length) out.exclude = c.exclude.map((r) => `${r.kind}:${r.id}`);
  if (c.households === 'one') out.households = 'one';
  if (c.sample) out.sample = { ...c.sample };
  return out;
}

/** A stable text for the controls: part of the key of result caches. */
export function listControlsKey(c: ListControls): string {
  return hasListControls(c) ? JSON.stringify(listControlsInput(c)) : '';
}
