// @vitest-environment happy-dom
// Browser mode's bridge on the wire: what it sends (path, token header, JSON body) and how every
// kind of answer becomes a value or a BridgeError with a code and a readable message.
import { describe, expect, it, vi } from 'vitest';
import { getBridge, setBridge } from '../../src/renderer/src/bridge';
import { createHttpBridge } from '../../src/renderer/src/bridge/httpBridge';
import { pageToken, type PageLocation } from '../../src/renderer/src/bridge/pageToken';
import { BridgeError, describeError, isCancelled, toBridgeError } from '../../src/renderer/src/bridge/bridgeError';
import { OPERATION_NAMES } from '../../src/shared/contract';
import { RPC_TOKEN_HEADER, rpcPath } from '../../src/shared/rpcPaths';

function respond(status: number, body: unknown): typeof fetch {
  return vi.fn(async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status })) as unknown as typeof fetch;
}

describe('http bridge', () => {
  it('posts each operation to its rpc path with the page token as a header', async () => {
    const fetchImpl = respond(200, { ok: true, value: { total: 12, ms: 2 } });
    const api = createHttpBridge({ token: 'tok-123', fetchImpl, baseUrl: 'http://127.0.0.1:9/' });
    expect(Object.keys(api).sort()).toEqual([...OPERATION_NAMES].sort());
    await expect(api['audience/count']({ state: 'CA', filters: [['GENDER', ['F']]] })).resolves.toEqual({ total: 12, ms: 2 });
    const [url, init] = (fetchImpl as unknown as ReturnType<typeof vi.fn>).mock.calls[0]!;
    expect(url).toBe(`http://127.0.0.1:9${rpcPath('audience/count')}`);
    expect(init.method).toBe('POST');
    expect(init.headers[RPC_TOKEN_HEADER]).toBe('tok-123');
    expect(init.headers['Content-Type']).toBe('application/json');
    expect(JSON.parse(init.body)).toEqual({ state: 'CA', filters: [['GENDER', ['F']]] });
  });

  it('throws an error envelope as a BridgeError with its code, message and field', async () => {
    const api = createHttpBridge({
      token: 't',
      fetchImpl: respond(400, { ok: false, error: { code: 'invalid_request', message: 'Unknown state "ZZ".', field: 'state' } }),
    });
    const e = await api['audience/count']({ state: 'ZZ', filters: [] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BridgeError);
    expect(e).toMatchObject({ code: 'invalid_request', message: 'Unknown state "ZZ".', field: 'state' });
    expect(describeError(e)).toBe('That request is not valid: Unknown state "ZZ".');
  });

  it('explains answers that are not envelopes and a server that is gone', async () => {
    const plain = createHttpBridge({ token: null, fetchImpl: respond(403, { error: { code: 'forbidden', message: 'Origin refused.' } }) });
    await expect(plain['keys/list']({})).rejects.toMatchObject({ code: 'forbidden', message: 'Origin refused.' });
    const html = createHttpBridge({ token: null, fetchImpl: respond(502, '<html>bad gateway</html>') });
    await expect(html['keys/list']({})).rejects.toMatchObject({ code: 'internal_error' });
    const stopping = createHttpBridge({ token: null, fetchImpl: respond(503, 'Service Unavailable') });
    await expect(stopping['keys/list']({})).rejects.toMatchObject({ code: 'unavailable' });
    const gone = createHttpBridge({
      token: null,
      fetchImpl: vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))) as unknown as typeof fetch,
    });
    const e = await gone['keys/list']({}).catch((x: unknown) => x);
    expect(describeError(e)).toMatch(/^No connection to the back end: .*serve/);
  });

  it('carries a stopped job as `cancelled`, a code of its own and not a bad request', async () => {
    const api = createHttpBridge({
      token: 't',
      fetchImpl: respond(499, { ok: false, error: { code: 'cancelled', message: 'The export was cancelled.' } }),
    });
    const e = await api['export/status']({ id: 'j1' }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'cancelled', message: 'The export was cancelled.' });
    expect(isCancelled(e)).toBe(true);
    expect(describeError(e)).toBe('Cancelled: The export was cancelled.');
    // A 499 without an envelope (a proxy's page, say) is still a cancel.
    const bare = createHttpBridge({ token: 't', fetchImpl: respond(499, 'Client Closed Request') });
    expect(isCancelled(await bare['import/status']({ id: 'i1' }).catch((x: unknown) => x))).toBe(true);
    // Over IPC the preload rejects with a plain object that keeps the code.
    expect(isCancelled(toBridgeError({ name: 'AudienceDeskError', code: 'cancelled', message: 'The import was cancelled.' }))).toBe(true);
    expect(isCancelled(new BridgeError('invalid_request', 'The export was cancelled.'))).toBe(false);
    expect(isCancelled(new Error('cancelled'))).toBe(false);
    expect(isCancelled(null)).toBe(false);
  });

  it('takes the token out of the page URL, keeps it for a reload, and leaves the rest of the URL', () => {
    const stored = new Map<string, string>();
    const page = (search: string, hash = ''): PageLocation & { replaced: string[] } => {
      const replaced: string[] = [];
      return {
        location: { pathname: '/ui/', search, hash },
        history: { state: null, replaceState: (_s: unknown, _t: string, url?: string | URL | null) => void replaced.push(String(url)) },
        storage: { getItem: (k) => stored.get(k) ?? null, setItem: (k, v) => void stored.set(k, v) },
        replaced,
      };
    };
    const first = page('?token=abc%2Bdef&x=1', '#saved');
    expect(pageToken(first)).toBe('abc+def');
    expect(first.replaced).toEqual(['/ui/?x=1#saved']);
    const reload = page('');
    expect(pageToken(reload)).toBe('abc+def');
    expect(reload.replaced).toEqual([]);
    expect(pageToken({ ...page(''), storage: null })).toBeNull();
  });

  it('uses the Electron preload when present, turning its plain-object failures into BridgeErrors', async () => {
    const preload = {
      'dataset/info': async () => Promise.reject({ name: 'AudienceDeskError', code: 'unavailable', message: 'No dataset is open yet.' }),
      'keys/list': async () => [],
      showInFolder: async () => undefined,
    };
    (globalThis as Record<string, unknown>).audienceDesk = preload;
    setBridge(null);
    try {
      const bridge = getBridge();
      await expect(bridge['keys/list']({})).resolves.toEqual([]);
      const e = await bridge['dataset/info']({}).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(BridgeError);
      expect(describeError(e)).toBe('Not available yet: No dataset is open yet.');
      expect(typeof bridge.showInFolder).toBe('function');
    } finally {
      delete (globalThis as Record<string, unknown>).audienceDesk;
      setBridge(null);
    }
  });
});
