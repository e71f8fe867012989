// The machine-readable description of the API (GET /api/openapi.json), built from the same
// constants the server enforces (request rules, body limit, rate limits, error codes), so it cannot
// drift from them. test/api/openapi.test.ts checks it against the running server and lints it.
import { z } from 'zod';
import { EXCLUDE_MAX, NEAR_MILES_MAX } from '../shared/listControls';
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
import { STATE_CODES } from '../shared/states';
import { BODY_LIMIT_BYTES, type ApiServerOptions } from './apiServer';
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_KEY, DEFAULT_RATE_LIMIT, DEFAULT_UNAUTHENTICATED_LIMIT } from './rateLimiter';

/** Codes only the app's own operations answer (a stopped export or import), never the HTTP API. */
const APP_ONLY_CODES: readonly ErrorCode[] = ['cancelled'];
export const API_ERROR_CODES = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => !APP_ONLY_CODES.includes(c));

/** A pattern that matches `word` in any case, e.g. `[Cc][Aa]`. */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('');

/** The interface's own example (audience-query-service.md, section 2.1). */
const EXAMPLE_REQUEST = {
  state: 'CA',
  limit: 5,
  skip: 0,
  filters: [
    ['GENDER', ['F']],
    ['MARRIEDCD', ['M']],
    ['AGE', ['25-29', '45-49']],
  ],
};

function schemaOfType(type: string): object {
  return type === 'integer' ? { type: 'integer' } : type === 'number' ? { type: 'number' } : { type: 'string' };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object, extra: object = {}) => ({ 'application/json': { schema, ...extra } });

/**
 * The document for a server answering at `serverUrl` (its real port) with `options` (its limits; the
 * defaults of rateLimiter.ts where unset).
 */
export function buildOpenApiDocument(serverUrl: string, options: ApiServerOptions = {}): object {
  const rate = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const keyless = options.unauthenticatedLimit ?? DEFAULT_UNAUTHENTICATED_LIMIT;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const maxInFlightPerKey = options.maxInFlightPerKey ?? DEFAULT_MAX_IN_FLIGHT_PER_KEY;
  const bodyKiB = BODY_LIMIT_BYTES / 1024;
  const codesOf = (status: number) => API_ERROR_CODES.filter((c) => ERROR_STATUS[c] === status);

  /** An error answer: the envelope, and the codes this status carries. */
  const error = (status: number, when: string, headers?: object) => ({
    description: `${codesOf(status)
      .map((c) => `\`${c}\``)
      .join(' or ')}: ${when}`,
    ...(headers ? { headers } : {}),
    content: json(ref('Error')),
  });
  const retryAfter = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };
  const retryAfterIfBusy = { 'Retry-After': { $ref: '#/components/headers/RetryAfterIfBusy' } };
  // Every route: Host or Origin refused before anything else, another method, a failure.
  const common = {
    '403': error(
      403,
      'the Host header is not 127.0.0.1, localhost or [::1] with this port, or the request came from a web page (Origin, Sec-Fetch-Site).',
    ),
    '405': error(405, 'another method on this path; the Allow header lists the one that works.', {
      Allow: { $ref: '#/components/headers/Allow' },
    }),
  };
  const failed = { '500': error(500, 'the service failed unexpectedly; retry.') };
  const busy = `${maxInFlight} requests are already being worked on (with Retry-After)`;

  const rateLimited = error(
    429,
    `this key sent more than ${rate.perSecond} requests a second (bursts of up to ${rate.burst} allowed), or has ${maxInFlightPerKey} requests in flight already; ` +
      `or requests without a valid key (all together) passed ${keyless.perSecond} a second (bursts of ${keyless.burst}).`,
    retryAfter,
  );
  const audienceOperation = (operationId: string, summary: string, description: string, response: string) => ({
    operationId,
    tags: ['audiences'],
    summary,
    description,
    requestBody: {
      required: true,
      description: `At most ${BODY_LIMIT_BYTES} bytes (${bodyKiB} KiB) of JSON, sent with Content-Type: application/json.`,
      content: json(ref('AudienceRequest'), {
        examples: { interface: { summary: "The interface document's example", value: EXAMPLE_REQUEST } },
      }),
    },
    responses: {
      '200': { description: 'The audience: its exact total and the requested page, in ascending PID order.', content: json(ref(response)) },
      '400': error(400, 'the body is not a JSON object, or breaks a rule of AudienceRequest; `field` names the input at fault.'),
      '401': error(401, 'the X-API-KEY header is missing, unknown or revoked (one answer for all three).'),
      ...common,
      '413': error(413, `the body is larger than ${BODY_LIMIT_BYTES} bytes (${bodyKiB} KiB).`),
      '415': error(415, 'the body is not sent as Content-Type: application/json.'),
      '429': rateLimited,
      ...failed,
      '503': error(
        503,
        `no dataset is open, the dataset is being replaced, the query ran over its time budget, or ${busy} (\`unavailable\`); ` +
          'or the part of the dataset file the request reads is damaged (`dataset_damaged`: a checksum or SQLite found it, retrying ' +
          'cannot help; the message names the file and says what to do: switch to the previous dataset or re-import).',
        retryAfterIfBusy,
      ),
    },
  });

  // The data dictionary: keyed and rate-limited like the operations, but a GET with no body.
  const fieldsOperation = {
    operationId: 'listFields',
    tags: ['dictionary'],
    summary: 'The data dictionary: every record field with its label, group, meaning and codes',
    description:
      `One entry per record field (${FIELDS.length}), in record order: the words an analyst would use, a group, a plain ` +
      'description, and for coded fields every code with its meaning in natural order (`values`, null for free fields).',
    responses: {
      '200': { description: 'Every record field, in record order.', content: json(ref('FieldList')) },
      '401': error(401, 'the X-API-KEY header is missing, unknown or revoked (one answer for all three).'),
      ...common,
      '429': rateLimited,
      ...failed,
      '503': error(503, `${busy}.`, retryAfterIfBusy),
    },
  };
  const unauthenticated = (operationId: string, summary: string, response: object, unavailable: string) => ({
    operationId,
    tags: ['service'],
    summary,
    security: [],
    responses: {
      '200': response,
      ...common,
      ...failed,
      '503': error(503, unavailable, retryAfterIfBusy),
    },
  });

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
      items: { type: 'string', pattern: '^(saved|list|export):[A-Za-z0-9_-]{1,64}$' },
      description:
        'Leave out the people of a saved audience ("saved:<id>", as it matches now), an imported suppression list ' +
        '("list:<id>") or an earlier export ("export:<id>", the people it wrote). An unknown id is a 400.',
    },
    households: {
      type: 'string',
      enum: ['all', 'one'],
      default: 'all',
      description: '"one": a single person per HHID among the people left by the keys above, the one with the lowest PID.',
    },
    sample: {
      oneOf: [
        { type: 'object', additionalProperties: false, required: ['every'], properties: { every: { type: 'integer', minimum: 1 } } },
        {
          type: 'object',
          additionalProperties: false,
          required: ['size', 'seed'],
          properties: { size: { type: 'integer', minimum: 1 }, seed: { type: 'integer' } },
        },
      ],
      description:
        'Applied last. {"every": n}: the 1st, (n+1)th, (2n+1)th … person in PID order. {"size": n, "seed": s}: a uniform ' +
        'random sample of n people (everyone when fewer), the same for the same audience and seed, returned in PID order.',
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Audience Desk loopback API',
      version: '1',
      description:
        'Counts and pages of the person records of one state that match a set of filters, served by the Audience Desk ' +
        'desktop app (or `serve`) on 127.0.0.1 only. The two audience operations and the data dictionary need an API key in `X-API-KEY` ' +
        '(created in the app or with `keys create`); health and this document need none. Every error is the `Error` ' +
        'envelope; an unknown path answers 404 `not_found`.\n\n' +
        `Limits: a request body of at most ${BODY_LIMIT_BYTES} bytes; per key ${rate.perSecond} requests a second ` +
        `sustained with bursts of ${rate.burst}, and ${maxInFlightPerKey} requests in flight (429 with Retry-After); ` +
        `requests without a valid key, all together, ${keyless.perSecond} a second with bursts of ${keyless.burst} (429 with Retry-After); ` +
        `${maxInFlight} requests in flight over all keys (503 with Retry-After); \`limit\` clamped to ${LIMIT_MAX}; ` +
        `at most ${FILTERS_MAX} filters of at most ${FILTER_VALUES_MAX} values each. The same figures are in \`x-limits\`.`,
    },
    servers: [{ url: serverUrl, description: 'This server (loopback only).' }],
    security: [{ apiKey: [] }],
    tags: [
      { name: 'audiences', description: 'Count and page through an audience (API key required).' },
      { name: 'dictionary', description: 'What every record field means (API key required).' },
      { name: 'service', description: 'Health and this document (no key).' },
    ],
    'x-limits': {
      bodyBytes: BODY_LIMIT_BYTES,
      requestsPerSecondPerKey: rate.perSecond,
      burstPerKey: rate.burst,
      inFlightPerKey: maxInFlightPerKey,
      unauthenticatedPerSecond: keyless.perSecond,
      unauthenticatedBurst: keyless.burst,
      inFlight: maxInFlight,
      limitMax: LIMIT_MAX,
      filtersMax: FILTERS_MAX,
      filterValuesMax: FILTER_VALUES_MAX,
      filterValueLengthMax: FILTER_VALUE_LENGTH_MAX,
    },
    paths: {
      '/api/audiences/preview': {
        post: audienceOperation(
          'previewAudience',
          'Count an audience and page through compact records',
          'The exact number of records of `state` that match every filter, and a page of them (pid, first and last name, city, state) in ascending PID order.',
          'PreviewResponse',
        ),
      },
      '/api/audiences/search': {
        post: audienceOperation(
          'searchAudience',
          'Count an audience and page through full records',
          `The exact number of records of \`state\` that match every filter, and a page of full records (all ${FIELDS.length} fields) in ascending PID order.`,
          'SearchResponse',
        ),
      },
      '/api/fields': { get: fieldsOperation },
      '/api/health': {
        get: unauthenticated(
          'getHealth',
          'Liveness and the number of records (no key)',
          { description: 'The server answers and a dataset is open.', content: json(ref('Health')) },
          `no dataset is open yet, or ${busy}.`,
        ),
      },
      '/api/openapi.json': {
        get: unauthenticated(
          'getOpenApiDocument',
          'This document (no key)',
          { description: 'The OpenAPI 3.1 description of this API.', content: json({ type: 'object' }) },
          `${busy}.`,
        ),
      },
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-KEY',
          description: '`adk_` and 43 base64url characters, created in the app or with `keys create`.',
        },
      },
      headers: {
        RetryAfter: { description: 'Whole seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 1 } },
        RetryAfterIfBusy: {
          description: `Sent when ${maxInFlight} requests were in flight: whole seconds to wait before retrying.`,
          required: false,
          schema: { type: 'integer', minimum: 1 },
        },
        Allow: { description: 'The method this path answers.', required: true, schema: { type: 'string' } },
      },
      schemas: {
        AudienceRequest: {
          type: 'object',
          additionalProperties: false,
          required: requestKeys.required ?? ['state'],
          properties: Object.fromEntries(
            Object.entries(requestKeys.properties).map(([key, shape]) => [key, requestKeyRules[key] ?? shape]),
          ),
          examples: [EXAMPLE_REQUEST],
        },
        Filter: {
          type: 'array',
          description: '`[field name, values]`.',
          prefixItems: [
            {
              type: 'string',
              pattern: '^[A-Za-z][A-Za-z0-9_]*$',
              description: 'The name of a SearchRecord field other than LATITUDE and LONGITUDE, in any case.',
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
                  { type: 'integer', minimum: 0 },
                ],
              },
              examples: [['25-29', '45-49']],
            },
          ],
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
      },
    },
  };
}
