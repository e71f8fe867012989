// decisions.md, "Errors": every status and code, always the one envelope, never a stack trace,
// SQL or key.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ERROR_STATUS } from '../../src/shared/errors';
import { startApi, type ApiHarness } from '../support/apiHarness';
import { datasetOf } from '../support/audienceQueries';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi(inject('datasetPath'));
});
afterAll(async () => api.close());

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const text = await res.text();
  const body = JSON.parse(text);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(10);
  expect(Object.keys(body.error).every((k) => ['code', 'message', 'field'].includes(k))).toBe(true);
  expect(text).not.toMatch(/at .*\.ts:\d+|SELECT|sqlite/i);
  expect(text).not.toContain(api.key);
  return body;
}

describe('error envelope and codes', () => {
  it('400 invalid_json and invalid_request', async () => {
    await expectError(await api.post('/api/audiences/search', '{'), 400, 'invalid_json');
    await expectError(await api.post('/api/audiences/search', { state: 'CA', limit: -1 }), 400, 'invalid_request');
  });

  it('401 unauthorized: the same answer for a missing, unknown and revoked key', async () => {
    const { info, key } = api.core.keys.create('soon revoked');
    api.core.keys.revoke(info.id);
    const bodies = [];
    const keyHeaders: Array<Record<string, string>> = [
      {},
      { 'x-api-key': 'adk_' + 'A'.repeat(43) },
      { 'x-api-key': key },
      { 'x-api-key': 'short' },
    ];
    for (const headers of keyHeaders) {
      const res = await fetch(api.url + '/api/audiences/preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{"state":"CA"}',
      });
      bodies.push(await expectError(res, 401, 'unauthorized'));
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it('403 forbidden for a foreign Host or Origin', async () => {
    await expectError(await api.post('/api/audiences/preview', { state: 'CA' }, { origin: 'https://evil.example' }), 403, 'forbidden');
    // fetch will not let us forge Host; node:http can.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(api.url + '/api/health', { headers: { host: 'attacker.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('404 not_found and 405 method_not_allowed with Allow', async () => {
    await expectError(
      await fetch(api.url + '/api/audiences/other', { method: 'POST', headers: { 'x-api-key': api.key } }),
      404,
      'not_found',
    );
    await expectError(await fetch(api.url + '/nowhere'), 404, 'not_found');
    const get = await fetch(api.url + '/api/audiences/search', { headers: { 'x-api-key': api.key } });
    expect(get.headers.get('allow')).toBe('POST');
    await expectError(get, 405, 'method_not_allowed');
    const post = await fetch(api.url + '/api/health', { method: 'POST' });
    expect(post.headers.get('allow')).toBe('GET');
    await expectError(post, 405, 'method_not_allowed');
  });

  it('413 payload_too_large and 415 unsupported_media_type', async () => {
    await expectError(await api.post('/api/audiences/search', 'x'.repeat(300 * 1024)), 413, 'payload_too_large');
    await expectError(
      await api.post('/api/audiences/search', 'state=CA', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'unsupported_media_type',
    );
  });

  it('503 unavailable while no dataset is open', async () => {
    const empty = await startApi(undefined);
    try {
      await expectError(await empty.post('/api/audiences/preview', { state: 'CA' }), 503, 'unavailable');
      await expectError(await fetch(empty.url + '/api/health'), 503, 'unavailable');
    } finally {
      await empty.close();
    }
  });

  it('500 internal_error for an unexpected failure, without details', async () => {
    const broken = await startApi(inject('datasetPath'));
    try {
      // Close the dataset's SQLite connection under the running engine: the next page read fails.
      datasetOf(broken.core).close();
      await expectError(await broken.post('/api/audiences/search', { state: 'CA', limit: 5 }), 500, 'internal_error');
    } finally {
      broken.core.closeDataset = () => undefined;
      await broken.close();
    }
  });

  it('documents every code the server can send', () => {
    expect(Object.keys(ERROR_STATUS)).toEqual(
      expect.arrayContaining([
        'invalid_json',
        'invalid_request',
        'unauthorized',
        'forbidden',
        'not_found',
        'method_not_allowed',
        'payload_too_large',
        'unsupported_media_type',
        'rate_limited',
        'internal_error',
        'unavailable',
      ]),
    );
  });
});

describe('rate limit', () => {
  it('answers 429 rate_limited with Retry-After past the per-key budget, per key', async () => {
    const limited = await startApi(inject('datasetPath'), { rateLimit: { perSecond: 1, burst: 3 } });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await limited.post('/api/audiences/preview', { state: 'CA', limit: 0 })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const res = await limited.post('/api/audiences/preview', { state: 'CA', limit: 0 });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      await expectError(res, 429, 'rate_limited');
      const other = limited.core.keys.create('other').key;
      expect((await limited.post('/api/audiences/preview', { state: 'CA', limit: 0 }, { 'x-api-key': other })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
