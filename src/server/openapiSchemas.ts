// The schemas of the OpenAPI document (openapi.ts): the request's keys with the rules the server
// applies to them, and the components the answers refer to. Built from the same constants the server
// enforces; whole numbers end where the server's do, at 2^53 - 1 (Number.MAX_SAFE_INTEGER).
import { z } from 'zod';
import { EXCLUDE_MAX, LIKE_SEED_MIN, NEAR_MILES_MAX } from '../shared/listControls';
import {
  audienceRequestSchema,
  FILTERS_MAX,
  FILTER_VALUES_MAX,
  FILTER_VALUE_LENGTH_MAX,
  LIMIT_DEFAULT,
  LIMIT_MAX,
} from '../shared/audienceRequest';
import { DICTIONARY_GROUPS } from '../shared/dictionary';
import { ERROR_STATUS, type ErrorCode } from '../shared/errors';
import { FIELDS, PREVIEW_FIELDS } from '../shared/fields';
import { PROFILE_FIELDS } from '../shared/profile';
import { OVERLAP_SETS_MAX, OVERLAP_SETS_MIN } from '../shared/overlap';
import { STATE_CODES } from '../shared/states';

/** Codes only the app's own operations answer (a stopped export or import), never the HTTP API. */
const APP_ONLY_CODES: readonly ErrorCode[] = ['cancelled'];
export const API_ERROR_CODES = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => !APP_ONLY_CODES.includes(c));

/** A pattern that matches `word` in any case, e.g. `[Cc][Aa]`. */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('');

/** The interface's own example (audience-query-service.md, section 2.1). */
export const EXAMPLE_REQUEST = {
  state: 'CA',
  limit: 5,
  skip: 0,
  filters: [
    ['GENDER', ['F']],
    ['MARRIEDCD', ['M']],
    ['AGE', ['25-29', '45-49']],
  ],
};

/** Three saved audiences of California. */
export const EXAMPLE_OVERLAP_REQUEST = { state: 'CA', sets: ['saved:1', 'saved:2', 'list:customers'] };

/** A profile of the interface's example audience by income and age. */
export const EXAMPLE_PROFILE_REQUEST = { state: 'CA', filters: EXAMPLE_REQUEST.filters, fields: ['EHI', 'AGE'] };

function schemaOfType(type: string): object {
  return type === 'integer' ? { type: 'integer' } : type === 'number' ? { type: 'number' } : { type: 'string' };
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `sample.every` and `sample.size`: listControls.ts takes whole numbers from 1 to 2^53 - 1. */
const WHOLE_FROM_1 = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };

/** The AudienceRequest schema: every key the server accepts, with the rules it applies to each. */
function audienceRequestComponent(): object {
  // The request's keys are the server's own schema's (zod's JSON Schema of it), so a key the server
  // accepts is never missing here; the four of the interface get the rules the server applies after it.
  const requestKeys = z.toJSONSchema(audienceRequestSchema, { target: 'draft-2020-12', io: 'input' }) as {
    properties: Record<string, object>;
    required?: string[];
  };
  const requestKeyRules: Record<string, object> = {
    state: {
      type: 'string',
      pattern: `^(?:${STATE_CODES.map(anyCase).join('|')})$`,
      description: `USPS code of one of the 50 states or DC, in any case: ${STATE_CODES.join(', ')}.`,
      examples: ['CA'],
    },
    limit: {
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: LIMIT_DEFAULT,
      description: `Page size. Above ${LIMIT_MAX} it is clamped to ${LIMIT_MAX} (search echoes the effective value); 0 counts only.`,
    },
    skip: {
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 0,
      description: 'Matching records to skip; past `total` the page is empty.',
    },
    filters: {
      type: 'array',
      maxItems: FILTERS_MAX,
      default: [],
      description: 'A record matches when it matches every entry (AND) and, within one entry, any of its values (OR).',
      items: ref('Filter'),
    },
    // extensions.md: optional list controls, applied after the filters in this order.
    near: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['lat', 'lon', 'miles'],
          properties: {
            lat: { type: 'number', minimum: -90, maximum: 90 },
            lon: { type: 'number', minimum: -180, maximum: 180 },
            miles: { type: 'number', exclusiveMinimum: 0, maximum: NEAR_MILES_MAX },
          },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['zip', 'miles'],
          properties: {
            zip: { type: 'string', pattern: '^[0-9]{5}$' },
            miles: { type: 'number', exclusiveMinimum: 0, maximum: NEAR_MILES_MAX },
          },
        },
      ],
      description:
        'Only people whose LATITUDE/LONGITUDE lie within `miles` (great-circle distance, Earth radius 3,958.8 miles) of the point, ' +
        "or of the ZIP's centre: the mean position of the dataset's people in that ZIP. A ZIP the dataset does not know is a 400.",
    },
    contact: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: { phone: { const: 'callable' }, mail: { const: 'deliverable' } },
      description:
        'Only reachable people. phone "callable": at least one of PHONE, PHONE2, PHONE3 is non-empty and its paired flag ' +
        '(DNC, DNC2, DNC3) is empty. mail "deliverable": DPV is "Y" and VACANT is not "Y".',
    },
    exclude: {
      type: 'array',
      maxItems: EXCLUDE_MAX,
      items: { type: 'string', pattern: '^((saved|list|export):[A-Za-z0-9_-]{1,64}|exports-since:[0-9]{4}-[0-9]{2}-[0-9]{2})$' },
      description:
        'Leave out the people of a saved audience ("saved:<id>", as it matches now), an imported suppression list ' +
        '("list:<id>"), an earlier export ("export:<id>", the people it wrote) or every export finished on or after a day ' +
        '("exports-since:YYYY-MM-DD", the machine\'s local date). An unknown id, or a date that is not a day of the calendar, is a 400.',
    },
    include: {
      type: 'array',
      maxItems: EXCLUDE_MAX,
      items: { type: 'string', pattern: '^(saved|list|export):[A-Za-z0-9_-]{1,64}$' },
      description:
        'Only the people of at least one of them: a saved audience ("saved:<id>", as it matches now), an imported list ' +
        '("list:<id>") or an earlier export ("export:<id>"). Applied with `exclude`, after `contact`. An unknown id is a 400.',
    },
    like: {
      type: 'object',
      additionalProperties: false,
      required: ['seed', 'top'],
      properties: {
        seed: { type: 'string', pattern: '^(saved|list|export):[A-Za-z0-9_-]{1,64}$' },
        top: WHOLE_FROM_1,
      },
      description:
        "Lookalikes: rank the people left by the keys above by how much they resemble the seed's people in this state (a " +
        'naive-Bayes model over the coded fields and AGE bands, documented in the README) and keep the `top` most alike, ' +
        "ties by lower PID, returned in PID order. The seed's own people are never kept. A seed of under " +
        `${LIKE_SEED_MIN} people in the state is a 400 naming \`like\`.`,
    },
    households: {
      type: 'string',
      enum: ['all', 'one'],
      default: 'all',
      description: '"one": a single person per HHID among the people left by the keys above, the one with the lowest PID.',
    },
    sample: {
      oneOf: [
        { type: 'object', additionalProperties: false, required: ['every'], properties: { every: WHOLE_FROM_1 } },
        {
          type: 'object',
          additionalProperties: false,
          required: ['size', 'seed'],
          properties: {
            size: WHOLE_FROM_1,
            seed: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
          },
        },
      ],
      description:
        'Applied last. {"every": n}: the 1st, (n+1)th, (2n+1)th … person in PID order. {"size": n, "seed": s}: a uniform ' +
        'random sample of n people (everyone when fewer), the same for the same audience and seed, returned in PID order.',
    },
  };

  return {
    type: 'object',
    additionalProperties: false,
    required: requestKeys.required ?? ['state'],
    properties: Object.fromEntries(Object.entries(requestKeys.properties).map(([key, shape]) => [key, requestKeyRules[key] ?? shape])),
    examples: [EXAMPLE_REQUEST],
  };
}

/** The ProfileRequest schema: AudienceRequest's keys but `limit` and `skip`, and `fields`. */
function profileRequestComponent(): object {
  const audience = audienceRequestComponent() as { properties: Record<string, object>; required: string[] };
  const { limit: _limit, skip: _skip, ...keys } = audience.properties;
  return {
    type: 'object',
    additionalProperties: false,
    required: audience.required,
    properties: {
      ...keys,
      fields: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]*$' },
        description:
          `Fields to profile, in any case: any of ${PROFILE_FIELDS.length} (the coded fields of GET /api/fields and AGE); ` +
          'default every coded field, in record order. Any other field is a 400 naming it.',
      },
    },
    examples: [EXAMPLE_PROFILE_REQUEST],
  };
}

/** `components.schemas` of the document. */
export function componentSchemas(): object {
  return {
    AudienceRequest: audienceRequestComponent(),
    Filter: {
      type: 'array',
      description: '`[field name, values]`.',
      prefixItems: [
        {
          type: 'string',
          pattern: '^[A-Za-z][A-Za-z0-9_]*$',
          description: 'The name of a SearchRecord field other than LATITUDE and LONGITUDE (for a distance, use `near`), in any case.',
          examples: ['AGE'],
        },
        {
          type: 'array',
          minItems: 1,
          maxItems: FILTER_VALUES_MAX,
          description:
            'String fields: values compared in any case, `""` for an empty field. Integer fields: `N`, `LO-HI` (inclusive) or `N+`, as strings, or whole numbers.',
          items: {
            anyOf: [
              { type: 'string', maxLength: FILTER_VALUE_LENGTH_MAX },
              { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
            ],
          },
          examples: [['25-29', '45-49']],
        },
      ],
      // A pair and nothing more: OpenAPI 3.1 is JSON Schema 2020-12, where `items: false` closes a tuple.
      items: false,
      minItems: 2,
      maxItems: 2,
    },
    PreviewRecord: {
      type: 'object',
      required: PREVIEW_FIELDS.map((f) => f.toLowerCase()),
      properties: Object.fromEntries(PREVIEW_FIELDS.map((f) => [f.toLowerCase(), { type: 'string' }])),
    },
    SearchRecord: {
      type: 'object',
      required: FIELDS.map((f) => f.name),
      properties: Object.fromEntries(FIELDS.map((f) => [f.name, schemaOfType(f.type)])),
    },
    PreviewResponse: {
      type: 'object',
      required: ['total', 'results'],
      properties: { total: { type: 'integer', minimum: 0 }, results: { type: 'array', items: ref('PreviewRecord') } },
    },
    SearchResponse: {
      type: 'object',
      required: ['total', 'limit', 'skip', 'results'],
      properties: {
        total: { type: 'integer', minimum: 0 },
        limit: { type: 'integer', minimum: 0, maximum: LIMIT_MAX },
        skip: { type: 'integer', minimum: 0 },
        results: { type: 'array', items: ref('SearchRecord') },
      },
    },
    FieldList: {
      type: 'object',
      required: ['fields'],
      properties: { fields: { type: 'array', minItems: FIELDS.length, maxItems: FIELDS.length, items: ref('FieldEntry') } },
    },
    FieldEntry: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'label', 'group', 'type', 'description', 'values'],
      properties: {
        name: { type: 'string', description: 'The record field, as in SearchRecord.', examples: ['EHI'] },
        label: { type: 'string', description: 'The words an analyst would use.', examples: ['Estimated household income'] },
        group: { type: 'string', enum: [...DICTIONARY_GROUPS] },
        type: { type: 'string', enum: ['string', 'integer', 'number'] },
        description: { type: 'string', description: 'One or two plain sentences, with units where there are any.' },
        values: {
          description: 'For a coded field, every code and its meaning in natural order; null for a free field.',
          oneOf: [
            {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['code', 'label'],
                properties: { code: { type: 'string' }, label: { type: 'string' } },
              },
            },
            { type: 'null' },
          ],
        },
      },
    },
    ProfileRequest: profileRequestComponent(),
    ProfileResponse: {
      type: 'object',
      required: ['total', 'base', 'fields'],
      properties: {
        total: { type: 'integer', minimum: 0 },
        base: { type: 'object', required: ['total'], properties: { total: { type: 'integer', minimum: 0 } } },
        fields: { type: 'array', items: ref('ProfileField') },
      },
    },
    ProfileField: {
      type: 'object',
      required: ['name', 'label', 'values'],
      properties: {
        name: { type: 'string', examples: ['EHI'] },
        label: { type: 'string', examples: ['Estimated household income'] },
        values: { type: 'array', items: ref('ProfileValue') },
      },
    },
    ProfileValue: {
      type: 'object',
      required: ['code', 'label', 'count', 'share', 'baseCount', 'baseShare', 'index'],
      properties: {
        code: { type: 'string', description: 'The code, AGE\'s band (18-24 … 65+, 0-17 when held), "" for the empty value.' },
        label: { type: 'string', description: "The codebook's meaning; the bare code when the codebook does not know it." },
        unknown: { type: 'boolean', const: true, description: 'Present for a code the codebook does not know.' },
        count: { type: 'integer', minimum: 0 },
        share: { type: 'number', minimum: 0, maximum: 1 },
        baseCount: { type: 'integer', minimum: 0 },
        baseShare: { type: 'number', minimum: 0, maximum: 1 },
        index: { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
      },
    },
    OverlapRequest: {
      type: 'object',
      additionalProperties: false,
      required: ['state', 'sets'],
      properties: {
        state: { type: 'string', pattern: `^(?:${STATE_CODES.map(anyCase).join('|')})$` },
        sets: {
          type: 'array',
          minItems: OVERLAP_SETS_MIN,
          maxItems: OVERLAP_SETS_MAX,
          uniqueItems: true,
          items: { type: 'string', pattern: '^(saved|list|export):[A-Za-z0-9_-]{1,64}$' },
        },
      },
      examples: [EXAMPLE_OVERLAP_REQUEST],
    },
    OverlapResponse: {
      type: 'object',
      required: ['state', 'sets', 'pairs', 'regions'],
      properties: {
        state: { type: 'string' },
        sets: {
          type: 'array',
          items: {
            type: 'object',
            required: ['ref', 'total'],
            properties: { ref: { type: 'string' }, total: { type: 'integer', minimum: 0 } },
          },
        },
        pairs: { type: 'array', items: { type: 'array', items: { type: 'integer', minimum: 0 } } },
        regions: {
          type: 'array',
          items: {
            type: 'object',
            required: ['in', 'count'],
            properties: {
              in: {
                type: 'array',
                items: { type: 'integer', minimum: 0 },
                description: 'Indexes into `sets` of the sets these people are in.',
              },
              count: { type: 'integer', minimum: 0 },
            },
          },
        },
      },
    },
    Health: {
      type: 'object',
      required: ['status', 'records'],
      properties: { status: { type: 'string', const: 'ok' }, records: { type: 'integer', minimum: 0 } },
    },
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', enum: API_ERROR_CODES },
            message: { type: 'string', description: 'One sentence a person can act on.' },
            field: { type: 'string', description: 'The input at fault, where there is one.' },
          },
        },
      },
    },
  };
}
