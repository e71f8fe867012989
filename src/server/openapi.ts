// The machine-readable description of the API (GET /api/openapi.json), built from the same
// constants the server enforces, so it cannot drift from them.
import { FILTERS_MAX, FILTER_VALUES_MAX, LIMIT_DEFAULT, LIMIT_MAX } from '../shared/audienceRequest';
import { ERROR_STATUS } from '../shared/errors';
import { FIELDS, PREVIEW_FIELDS } from '../shared/fields';
import { STATE_CODES } from '../shared/states';

const JSON_TYPE = { 'application/json': {} };

function schemaOfType(type: string): object {
  return type === 'integer' ? { type: 'integer' } : type === 'number' ? { type: 'number' } : { type: 'string' };
}

export function buildOpenApiDocument(): object {
  const errorResponse = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  const errors = Object.fromEntries(
    [...new Set(Object.entries(ERROR_STATUS).map(([, s]) => s))].map((status) => [
      String(status),
      errorResponse(
        Object.entries(ERROR_STATUS)
          .filter(([, s]) => s === status)
          .map(([c]) => c)
          .join(', '),
      ),
    ]),
  );
  const operation = (summary: string, response: string) => ({
    summary,
    security: [{ apiKey: [] }],
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/AudienceRequest' } } } },
    responses: {
      '200': { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/${response}` } } } },
      ...errors,
    },
  });
  return {
    openapi: '3.1.0',
    info: { title: 'Audience Desk loopback API', version: '1' },
    servers: [{ url: 'http://127.0.0.1:{port}', variables: { port: { default: '0' } } }],
    paths: {
      '/api/audiences/preview': {
        post: operation('Count an audience and page through compact records (ascending PID).', 'PreviewResponse'),
      },
      '/api/audiences/search': {
        post: operation('Count an audience and page through full 374-field records (ascending PID).', 'SearchResponse'),
      },
      '/api/health': {
        get: {
          summary: 'Liveness and record count (no key).',
          responses: { '200': { description: 'OK', content: JSON_TYPE }, '503': errorResponse('unavailable') },
        },
      },
      '/api/openapi.json': { get: { summary: 'This document (no key).', responses: { '200': { description: 'OK', content: JSON_TYPE } } } },
    },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
      schemas: {
        AudienceRequest: {
          type: 'object',
          additionalProperties: false,
          required: ['state'],
          properties: {
            state: { type: 'string', enum: STATE_CODES, description: 'USPS code, any case.' },
            limit: { type: 'integer', minimum: 0, default: LIMIT_DEFAULT, description: `Clamped to ${LIMIT_MAX}; 0 counts only.` },
            skip: { type: 'integer', minimum: 0, default: 0 },
            filters: {
              type: 'array',
              maxItems: FILTERS_MAX,
              default: [],
              description: 'AND across entries, OR within one. Integer fields take N, LO-HI or N+.',
              items: {
                type: 'array',
                prefixItems: [
                  {
                    type: 'string',
                    enum: FIELDS.filter((f) => f.type !== 'number').map((f) => f.name),
                    description: 'Field name, any case.',
                  },
                  { type: 'array', minItems: 1, maxItems: FILTER_VALUES_MAX, items: { type: ['string', 'integer'] } },
                ],
                minItems: 2,
                maxItems: 2,
              },
            },
          },
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
          properties: { total: { type: 'integer' }, results: { type: 'array', items: { $ref: '#/components/schemas/PreviewRecord' } } },
        },
        SearchResponse: {
          type: 'object',
          required: ['total', 'limit', 'skip', 'results'],
          properties: {
            total: { type: 'integer' },
            limit: { type: 'integer' },
            skip: { type: 'integer' },
            results: { type: 'array', items: { $ref: '#/components/schemas/SearchRecord' } },
          },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
                message: { type: 'string' },
                field: { type: 'string' },
              },
            },
          },
        },
      },
    },
  };
}
