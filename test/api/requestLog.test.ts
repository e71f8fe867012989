// The request log says why a request was refused: the error's code, field and message, with every
// value the message quoted blanked, and never the key that was sent.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { useApiWithOracle, type ApiHarness } from '../support/apiHarness';
import type { SqlOracle } from '../support/oracle';

const harness = useApiWithOracle(() => inject('datasetPath'));
let api: ApiHarness;
let oracle: SqlOracle;
beforeAll(() => {
  api = harness.api();
  oracle = harness.oracle();
});

const last = () => api.server.requestLog.recent(1)[0]!;

describe('the request log of refused requests', () => {
  it('keeps the code, field and message of a 400, and nothing for a 200', async () => {
    const nyZip = String(oracle.distinct('NY', 'ZIP')[0]);
    expect((await api.post('/api/audiences/preview', { state: 'CA', near: { zip: nyZip, miles: 5 } })).status).toBe(400);
    expect(last()).toMatchObject({
      status: 400,
      operation: 'POST /api/audiences/preview',
      error: { code: 'invalid_request', field: 'near', message: `"near" names ZIP ${nyZip}, which no one in CA lives in.` },
    });
    expect((await api.post('/api/audiences/preview', { state: 'CA', limit: 0 })).status).toBe(200);
    expect(last().error).toBeUndefined();
  });

  it('blanks what the message quoted (a value sent, a made-up key) and never holds the key sent', async () => {
    const [person] = oracle.records('CA', [], 1, 0);
    const name = String(person!.LNAME);
    await api.post('/api/audiences/search', { state: 'CA', filters: [['AGE', [name]]] });
    expect(last().error).toEqual({ code: 'invalid_request', field: 'AGE', message: expect.stringContaining('"…"') });
    expect(JSON.stringify(last())).not.toContain(name);
    await api.post('/api/audiences/preview', { state: 'CA', [String(person!.PID)]: 1 });
    expect(JSON.stringify(last())).not.toContain(String(person!.PID));
    expect(last().error!.code).toBe('invalid_request');
    const wrongKey = `${api.key}x`;
    await api.post('/api/audiences/preview', { state: 'CA' }, { 'x-api-key': wrongKey });
    expect(last()).toMatchObject({ status: 401, error: { code: 'unauthorized', message: 'A valid X-API-KEY header is required.' } });
    expect(JSON.stringify(api.server.requestLog.recent(50))).not.toContain(api.key.slice(4, 24));
  });
});
