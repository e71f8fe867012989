// The machine-readable description of the API (GET /api/openapi.json), built from the same
// constants the server enforces (request rules, body limit, rate limits, error codes), so it cannot
// drift from them. test/api/openapi.test.ts checks it against the running server and lints it.
import { FILTERS_MAX, FILTER_VALUES_MAX, FILTER_VALUE_LENGTH_MAX, LIMIT_MAX } from '../shared/audienceRequest';
import { ERROR_STATUS } from '../shared/errors';
import { FIELDS } from '../shared/fields';
import { BODY_LIMIT_BYTES, type ApiServerOptions } from './serverOptions';
import {
  API_ERROR_CODES,
  componentSchemas,
  EXAMPLE_OVERLAP_REQUEST,
  EXAMPLE_PROFILE_REQUEST,
  EXAMPLE_REQUEST,
  ref,
} from './openapiSchemas';
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_KEY, DEFAULT_RATE_LIMIT, DEFAULT_UNAUTHENTICATED_LIMIT } from './rateLimiter';

export { API_ERROR_CODES };

const json = (schema: object, extra: object = {}) => ({ 'application/json': { schema, ...extra } });

type RequestSchema = 'AudienceRequest' | 'ProfileRequest' | 'OverlapRequest';
const REQUEST_EXAMPLES: Record<RequestSchema, object> = {
  AudienceRequest: { interface: { summary: "The interface document's example", value: EXAMPLE_REQUEST } },
  ProfileRequest: { incomeAndAge: { summary: 'Income and age bands of married women', value: EXAMPLE_PROFILE_REQUEST } },
  OverlapRequest: { three: { summary: 'Three saved audiences of California', value: EXAMPLE_OVERLAP_REQUEST } },
};
const ANSWERS: Record<RequestSchema, string> = {
  AudienceRequest: 'The audience: its exact total and the requested page, in ascending PID order.',
  ProfileRequest: 'The audience against everyone in its state, field by field.',
  OverlapRequest: 'The people each pair and each combination of the sets share.',
};

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
  const audienceOperation = (
    operationId: string,
    summary: string,
    description: string,
    response: string,
    request: RequestSchema = 'AudienceRequest',
  ) => ({
    operationId,
    tags: ['audiences'],
    summary,
    description,
    requestBody: {
      required: true,
      description:
        `At most ${BODY_LIMIT_BYTES} bytes (${bodyKiB} KiB) of JSON in UTF-8, sent as it is (no Content-Encoding) with ` +
        'Content-Type: application/json (a charset parameter, if any, must be utf-8). No object may name a key twice.',
      content: json(ref(request), {
        examples: REQUEST_EXAMPLES[request],
      }),
    },
    responses: {
      '200': {
        description: ANSWERS[request],
        content: json(ref(response)),
      },
      '400': error(
        400,
        `the body is not a JSON object, names a key twice in one object, or breaks a rule of ${request}; \`field\` names the input at fault.`,
      ),
      '401': error(401, 'the X-API-KEY header is missing, unknown or revoked (one answer for all three).'),
      ...common,
      '413': error(413, `the body is larger than ${BODY_LIMIT_BYTES} bytes (${bodyKiB} KiB).`),
      '415': error(
        415,
        'the body is not sent as Content-Type: application/json, names a charset other than utf-8, or has a Content-Encoding ' +
          '(then with Accept-Encoding: identity).',
      ),
      '429': rateLimited,
      ...failed,
      '503': error(
        503,
        `no dataset is open, the dataset is being replaced, the query ran over its time budget, the data source (a ClickHouse server) is not answering, or ${busy} (\`unavailable\`); ` +
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
  const unauthenticated = (operationId: string, summary: string, description: string, response: object, unavailable: string) => ({
    operationId,
    tags: ['service'],
    summary,
    description,
    security: [],
    responses: {
      '200': response,
      ...common,
      ...failed,
      '503': error(503, unavailable, retryAfterIfBusy),
    },
  });

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
      '/api/audiences/profile': {
        post: audienceOperation(
          'profileAudience',
          'How an audience differs from everyone in its state',
          'For each coded field asked (default: every coded field of the dictionary, in record order; AGE in its bands when asked), ' +
            'how many of the audience hold each code against everyone in its state (no filters, no list controls): count, share, ' +
            "baseCount, baseShare and index = round(100 × share / baseShare), null when baseShare is 0. Codes in the dictionary's " +
            'natural order, every code anyone in the state holds, the empty value as "". Shares are rounded to 4 decimals.',
          'ProfileResponse',
          'ProfileRequest',
        ),
      },
      '/api/audiences/overlap': {
        post: audienceOperation(
          'overlapAudiences',
          'How many people 2 to 5 saved audiences, lists or exports share',
          'For 2 to 5 sets of people of one state (saved audiences as they match now, imported lists, earlier exports): each ' +
            "set's people in the state, the people each pair shares (`pairs`, a matrix whose diagonal is each set), and the " +
            'people in exactly each combination of the sets and in none of the others (`regions`, 2^n - 1 of them). An extension ' +
            'of this project (docs/insight.md); an unknown id is a 400 naming `sets`.',
          'OverlapResponse',
          'OverlapRequest',
        ),
      },
      '/api/fields': { get: fieldsOperation },
      '/api/health': {
        get: unauthenticated(
          'getHealth',
          'Liveness and the number of records (no key)',
          'Whether the server answers and a dataset is open, and how many records that dataset holds. Needs no key.',
          { description: 'The server answers and a dataset is open.', content: json(ref('Health')) },
          `no dataset is open yet, or ${busy}.`,
        ),
      },
      '/api/openapi.json': {
        get: unauthenticated(
          'getOpenApiDocument',
          'This document (no key)',
          "This description of the API, with this server's own address and limits. Needs no key.",
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
      schemas: componentSchemas(),
    },
  };
}
