// GET /api/openapi.json, as tools use it: fetched from a real server on port 0, linted by a real
// linter (Redocly CLI, its recommended rules), and held against that server: every route and method,
// every status it answers with the headers the document promises, and every answer and request body
// checked against the document's schemas (Ajv, JSON Schema 2020-12, the dialect of OpenAPI 3.1).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/server/apiServer';
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_KEY, DEFAULT_RATE_LIMIT } from '../../src/server/rateLimiter';
import { audienceRequestSchema } from '../../src/shared/audienceRequest';
import { ERROR_STATUS } from '../../src/shared/errors';
import { FIELD_NAMES, FIELDS } from '../../src/shared/fields';
import { startApi, type ApiHarness } from '../support/apiHarness';

const run = promisify(execFile);

let api: ApiHarness;
let doc: any;
let work: string;

beforeAll(async () => {
  api = await startApi(inject('datasetPath'));
  doc = await (await fetch(api.url + '/api/openapi.json')).json();
  work = mkdtempSync(join(tmpdir(), 'audience-desk-openapi-'));
});

afterAll(async () => {
  await api.close();
  rmSync(work, { recursive: true, force: true });
});

/** Ajv over the document's schemas, its `#/components/schemas/X` references made `#/$defs/X`. */
function validatorOf(document: any): (schema: string, value: unknown) => string[] {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  const defs = JSON.parse(JSON.stringify(document.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'));
  ajv.addSchema({ $id: 'doc', $defs: defs });
  return (schema, value) => {
    const validate = ajv.getSchema(`doc#/$defs/${schema}`)!;
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

const METHODS = ['get', 'head', 'post', 'put', 'delete', 'patch', 'options'] as const;

/**
 * A real answer held against the document: its status is declared for the operation (405: for the
 * path's operations, since the method used has none), its body matches the declared schema, and the
 * headers the document marks required are there.
 */
async function expectDocumented(document: any, path: string, method: string, res: Response): Promise<any> {
  const item = document.paths[path];
  expect(item, path).toBeDefined();
  const operation = item[method] ?? Object.values(item)[0];
  const declared = operation.responses[String(res.status)];
  expect(declared, `${method.toUpperCase()} ${path} answered ${res.status}, which the document does not declare`).toBeDefined();
  const body = (await res.json()) as any;
  const schema = declared.content['application/json'].schema;
  const name = schema.$ref?.replace('#/components/schemas/', '');
  if (name) expect(validatorOf(document)(name, body), `${method} ${path} ${res.status}`).toEqual([]);
  for (const [header, value] of Object.entries<any>(declared.headers ?? {})) {
    const def = value.$ref ? document.components.headers[value.$ref.split('/').pop()] : value;
    if (def.required) expect(res.headers.get(header), `${header} on ${res.status}`).not.toBeNull();
    if (header === 'Retry-After' && res.headers.get(header) !== null) expect(Number(res.headers.get(header))).toBeGreaterThanOrEqual(1);
  }
  if (res.status >= 400) {
    expect(declared.description).toContain(`\`${body.error.code}\``);
    expect(ERROR_STATUS[body.error.code as keyof typeof ERROR_STATUS]).toBe(res.status);
  }
  return body;
}

const send = (url: string, method: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('the OpenAPI document, linted', () => {
  it("passes Redocly CLI's recommended rules with no errors, and only the warnings accepted here", async () => {
    const file = join(work, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const cli = join(process.cwd(), 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    // Run from the temporary folder so no project config is picked up: the recommended rules as they are.
    const result = await run(process.execPath, [cli, 'lint', file, '--extends', 'recommended', '--format', 'json'], {
      cwd: work,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 60_000,
    }).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    const report = JSON.parse(result.stdout) as {
      problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
    };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems.filter((p) => p.startsWith('error'))).toEqual([]);
    // The one warning left: the app is private, so there is no license to name.
    expect(problems).toEqual(['warn info-license #/info: Info object should contain `license` field.']);
  });

  it("passes Spectral's oas rules (the project's .spectral.yaml) with no errors, and only the warning accepted here", async () => {
    const file = join(work, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    // The ruleset beside the document, as a user would lint it: its one override names a schema of the document.
    copyFileSync(join(process.cwd(), '.spectral.yaml'), join(work, '.spectral.yaml'));
    const cli = join(process.cwd(), 'node_modules', '@stoplight', 'spectral-cli', 'dist', 'index.js');
    const result = await run(
      process.execPath,
      [cli, 'lint', file, '--ruleset', join(work, '.spectral.yaml'), '--format', 'json', '--quiet'],
      {
        cwd: work,
        env: { ...process.env, NO_COLOR: '1' },
        timeout: 60_000,
      },
    ).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    const report = JSON.parse(result.stdout) as Array<{ code: string; severity: number; path: string[]; message: string }>;
    const severity = ['error', 'warn', 'info', 'hint'];
    const problems = report.map((p) => `${severity[p.severity]} ${p.code} ${p.path.join('.')}: ${p.message}`);
    expect(problems.filter((p) => p.startsWith('error'))).toEqual([]);
    // The one warning left: a private desktop app has no contact to name.
    expect(problems).toEqual(['warn info-contact info: Info object must have "contact" object.']);
  });
});

describe('the OpenAPI document, against the server that serves it', () => {
  it('names the server it came from, with its real port', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: api.url })]);
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
  });

  it('lists exactly the /api routes the server has, with their methods and unique operationIds', async () => {
    const routes = api.server.app.printRoutes({ commonPrefix: false });
    const served = [...new Set([...routes.matchAll(/(\/api\/\S+) \(([^)]+)\)/g)].map((m) => m[1]!))].sort();
    expect(Object.keys(doc.paths).sort()).toEqual(served);
    const ids: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const documented = METHODS.filter((m) => item[m]);
      for (const m of documented) ids.push(item[m].operationId);
      // Every other method is 405 with an Allow header naming the documented method.
      for (const method of METHODS.filter((m) => !documented.includes(m) && m !== 'head' && m !== 'options')) {
        const res = await send(api.url + path, method.toUpperCase());
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow')).toBe(documented.map((m) => m.toUpperCase()).join(', '));
        await expectDocumented(doc, path, method, res);
      }
    }
    expect(ids.every((id) => /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([
      'getHealth',
      'getOpenApiDocument',
      'listFields',
      'overlapAudiences',
      'previewAudience',
      'profileAudience',
      'searchAudience',
    ]);
  });

  it('asks for the key on the audience operations and the data dictionary only: health and the document say security: []', async () => {
    expect(doc.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-KEY' });
    expect(doc.paths['/api/health'].get.security).toEqual([]);
    expect(doc.paths['/api/openapi.json'].get.security).toEqual([]);
    expect(doc.paths['/api/fields'].get.security).toBeUndefined();
    for (const path of ['/api/audiences/preview', '/api/audiences/search']) {
      expect(doc.paths[path].post.security).toBeUndefined();
      await expectDocumented(doc, path, 'post', await send(api.url + path, 'POST', { state: 'CA' }));
    }
    await expectDocumented(doc, '/api/health', 'get', await fetch(api.url + '/api/health'));
    await expectDocumented(doc, '/api/openapi.json', 'get', await fetch(api.url + '/api/openapi.json'));
  });

  it('describes the 200 answers of all five operations with schemas they match', async () => {
    const example = doc.paths['/api/audiences/preview'].post.requestBody.content['application/json'].examples.interface.value;
    const preview = await expectDocumented(doc, '/api/audiences/preview', 'post', await api.post('/api/audiences/preview', example));
    expect(preview.results.length).toBeGreaterThan(0);
    const search = await expectDocumented(
      doc,
      '/api/audiences/search',
      'post',
      await api.post('/api/audiences/search', { ...example, limit: 3 }),
    );
    expect(search.results).toHaveLength(3);
    const health = await expectDocumented(doc, '/api/health', 'get', await fetch(api.url + '/api/health'));
    expect(health).toEqual({ status: 'ok', records: inject('testRows') });
    const fields = await expectDocumented(
      doc,
      '/api/fields',
      'get',
      await fetch(api.url + '/api/fields', { headers: { 'x-api-key': api.key } }),
    );
    expect(fields.fields).toHaveLength(FIELDS.length);
    expect(doc.paths['/api/health'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Health',
    });
    expect(await expectDocumented(doc, '/api/openapi.json', 'get', await fetch(api.url + '/api/openapi.json'))).toEqual(doc);
    expect(doc.components.schemas.SearchRecord.required).toEqual(FIELD_NAMES);
  });

  it('declares every error status the server answers, with its code, its schema and its headers', async () => {
    const preview = '/api/audiences/preview';
    const search = '/api/audiences/search';
    const cases: Array<[string, string, Promise<Response>, number]> = [
      [preview, 'post', api.post(preview, '{"state":'), 400],
      [search, 'post', api.post(search, { state: 'CA', filter: [] }), 400],
      [preview, 'post', send(api.url + preview, 'POST', { state: 'CA' }), 401],
      [search, 'post', api.post(search, { state: 'CA' }, { 'x-api-key': 'adk_nope' }), 401],
      [preview, 'post', api.post(preview, { state: 'CA' }, { origin: 'https://evil.example' }), 403],
      [search, 'post', api.post(search, 'x'.repeat(BODY_LIMIT_BYTES + 1)), 413],
      [preview, 'post', api.post(preview, 'state=CA', { 'content-type': 'text/plain' }), 415],
      ['/api/health', 'get', fetch(api.url + '/api/health', { headers: { origin: 'https://evil.example' } }), 403],
      ['/api/openapi.json', 'get', fetch(api.url + '/api/openapi.json', { headers: { origin: 'https://evil.example' } }), 403],
      ['/api/fields', 'get', fetch(api.url + '/api/fields'), 401],
      ['/api/fields', 'get', fetch(api.url + '/api/fields', { headers: { 'x-api-key': api.key, origin: 'https://evil.example' } }), 403],
    ];
    for (const [path, method, answer, status] of cases) {
      const res = await answer;
      expect(res.status, `${method} ${path}`).toBe(status);
      await expectDocumented(doc, path, method, res);
    }
  });

  it('declares 429 with Retry-After and the rate limit of the server that serves it', async () => {
    expect(doc['x-limits']).toMatchObject({
      bodyBytes: BODY_LIMIT_BYTES,
      requestsPerSecondPerKey: DEFAULT_RATE_LIMIT.perSecond,
      burstPerKey: DEFAULT_RATE_LIMIT.burst,
      inFlight: DEFAULT_MAX_IN_FLIGHT,
      inFlightPerKey: DEFAULT_MAX_IN_FLIGHT_PER_KEY,
    });
    const limited = await startApi(inject('datasetPath'), { rateLimit: { perSecond: 1, burst: 2 } });
    try {
      const own = (await (await fetch(limited.url + '/api/openapi.json')).json()) as any;
      expect(own.servers[0].url).toBe(limited.url);
      expect(own['x-limits']).toMatchObject({ requestsPerSecondPerKey: 1, burstPerKey: 2 });
      expect(own.paths['/api/audiences/search'].post.responses['429'].description).toContain(
        'more than 1 requests a second (bursts of up to 2 allowed)',
      );
      let res: Response | undefined;
      for (let i = 0; i < 3; i++) res = await limited.post('/api/audiences/search', { state: 'CA', limit: 1 });
      expect(res!.status).toBe(429);
      await expectDocumented(own, '/api/audiences/search', 'post', res!);
    } finally {
      await limited.close();
    }
  });

  it('declares 503 for every route: with Retry-After when busy, without a dataset', async () => {
    const busy = await startApi(inject('datasetPath'), { maxInFlight: 0 });
    try {
      for (const [path, method] of [
        ['/api/audiences/preview', 'post'],
        ['/api/health', 'get'],
        ['/api/openapi.json', 'get'],
        ['/api/fields', 'get'],
      ] as const) {
        // With the key: the cap is taken once the key is checked, so a keyless /api/fields is a 401 first.
        const res =
          method === 'post' ? await busy.post(path, { state: 'CA' }) : await fetch(busy.url + path, { headers: { 'x-api-key': busy.key } });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        await expectDocumented(doc, path, method, res);
      }
    } finally {
      await busy.close();
    }
    const empty = await startApi(undefined);
    try {
      await expectDocumented(doc, '/api/health', 'get', await fetch(empty.url + '/api/health'));
      await expectDocumented(doc, '/api/audiences/search', 'post', await empty.post('/api/audiences/search', { state: 'CA' }));
    } finally {
      await empty.close();
    }
  });

  it('keeps the app-only error code `cancelled` out: the Error enum is what the API answers', () => {
    const codes = doc.components.schemas.Error.properties.error.properties.code.enum as string[];
    expect(codes).not.toContain('cancelled');
    expect(codes.sort()).toEqual(
      Object.keys(ERROR_STATUS)
        .filter((c) => c !== 'cancelled')
        .sort(),
    );
    const statuses = new Set(
      Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).flatMap((op) => Object.keys(op.responses))),
    );
    expect(statuses.has('499')).toBe(false);
    // Every code but not_found (an unknown path, which has no operation) has a status declared somewhere.
    for (const code of codes.filter((c) => c !== 'not_found'))
      expect(statuses.has(String(ERROR_STATUS[code as keyof typeof ERROR_STATUS])), code).toBe(true);
  });

  it('states the body limit on both operations', () => {
    for (const path of ['/api/audiences/preview', '/api/audiences/search']) {
      const op = doc.paths[path].post;
      expect(op.requestBody.description).toContain(`${BODY_LIMIT_BYTES} bytes`);
      expect(op.responses['413'].description).toContain(`${BODY_LIMIT_BYTES} bytes`);
    }
  });

  it('bounds every whole number as the server does (2^53 - 1 at most) and closes the Filter pair (issue 33)', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const keys = doc.components.schemas.AudienceRequest.properties;
    expect(keys.limit).toMatchObject({ type: 'integer', minimum: 0, maximum: max });
    expect(keys.skip).toMatchObject({ type: 'integer', minimum: 0, maximum: max });
    const [every, sized] = keys.sample.oneOf;
    expect(every.properties.every).toEqual({ type: 'integer', minimum: 1, maximum: max });
    expect(sized.properties.size).toEqual({ type: 'integer', minimum: 1, maximum: max });
    expect(sized.properties.seed).toEqual({ type: 'integer', minimum: -max, maximum: max });
    const filter = doc.components.schemas.Filter;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(filter).toMatchObject({ type: 'array', prefixItems: [expect.any(Object), expect.any(Object)], items: false });
    expect(filter.prefixItems[1].items.anyOf).toContainEqual({ type: 'integer', minimum: 0, maximum: max });
    // The schema and the server agree on each side of every bound.
    const valid = validatorOf(doc);
    const cases: Array<[unknown, boolean]> = [
      [{ state: 'CA', limit: 0, sample: { size: 1, seed: max } }, true],
      [{ state: 'CA', limit: 0, sample: { size: 1, seed: -max } }, true],
      [{ state: 'CA', limit: 0, sample: { size: 1, seed: max + 1 } }, false],
      [{ state: 'CA', limit: 0, sample: { size: 1, seed: -max - 1 } }, false],
      [{ state: 'CA', limit: 0, sample: { size: max, seed: 1 } }, true],
      [{ state: 'CA', limit: 0, sample: { size: max + 1, seed: 1 } }, false],
      [{ state: 'CA', limit: 0, sample: { size: 0, seed: 1 } }, false],
      [{ state: 'CA', limit: 0, sample: { every: max } }, true],
      [{ state: 'CA', limit: 0, sample: { every: max + 1 } }, false],
      [{ state: 'CA', limit: 0, sample: { every: 0 } }, false],
      [{ state: 'CA', limit: max + 1 }, false],
      [{ state: 'CA', limit: 0, filters: [['AGE', [max]]] }, true],
      [{ state: 'CA', limit: 0, filters: [['AGE', [max + 1]]] }, false],
      [{ state: 'CA', limit: 0, filters: [['GENDER', ['F'], ['M']]] }, false],
    ];
    for (const [body, ok] of cases) {
      const label = JSON.stringify(body);
      expect(valid('AudienceRequest', body).length === 0, label).toBe(ok);
      expect((await api.post('/api/audiences/preview', body)).status, label).toBe(ok ? 200 : 400);
    }
  });

  it('describes every request key the server accepts, and no other', () => {
    const schema = doc.components.schemas.AudienceRequest;
    expect(Object.keys(schema.properties)).toEqual(Object.keys(audienceRequestSchema.shape));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['state']);
  });

  it('accepts in its request schema what the server accepts, in any case, and rejects what it refuses', async () => {
    const valid = validatorOf(doc);
    const accepted: unknown[] = [
      doc.components.schemas.AudienceRequest.examples[0],
      { state: 'ca' },
      { state: 'Tx', limit: 5000, skip: 3 },
      {
        state: 'ny',
        filters: [
          ['gender', ['f']],
          ['age', [30, '25-29', '65+']],
          ['homeownerc', ['']],
        ],
      },
      { state: 'DC', limit: 0, filters: [] },
      {
        state: 'CA',
        filters: FIELDS.filter((f) => f.type !== 'number')
          .map((f) => [f.name.toLowerCase(), [f.type === 'integer' ? 1 : 'x']])
          .slice(0, 64),
      },
    ];
    for (const body of accepted) {
      expect(valid('AudienceRequest', body), JSON.stringify(body).slice(0, 80)).toEqual([]);
      expect((await api.post('/api/audiences/preview', body)).status, JSON.stringify(body).slice(0, 80)).toBe(200);
    }
    const refused: unknown[] = [
      {},
      { state: 'ZZ' },
      { state: 'CA', filter: [] },
      { state: 'CA', limit: -1 },
      { state: 'CA', limit: 1.5 },
      { state: 'CA', skip: 'x' },
      { state: 'CA', filters: [['GENDER', []]] },
      { state: 'CA', filters: [['GENDER']] },
      { state: 'CA', filters: [['AGE', [-1]]] },
      { state: 'CA', filters: [['GENDER', ['x'.repeat(257)]]] },
      { state: 'CA', filters: Array.from({ length: 65 }, () => ['GENDER', ['F']]) },
    ];
    for (const body of refused) {
      expect(valid('AudienceRequest', body), JSON.stringify(body).slice(0, 80)).not.toEqual([]);
      expect((await api.post('/api/audiences/preview', body)).status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
  });
});
