// Search answers are written into kept buffers (src/server/answerBuffers.ts): answers that follow
// one another reuse them and still carry their own records, a buffer is reused only after its
// response was sent, and one whose client left mid-answer is never handed out again.
import { request } from 'node:http';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { AnswerBuffers } from '../../src/server/answerBuffers';
import { useApiWithOracle, type ApiHarness } from '../support/apiHarness';
import type { SqlOracle } from '../support/oracle';

const harness = useApiWithOracle(() => inject('datasetPath'));
let api: ApiHarness;
let oracle: SqlOracle;
beforeAll(() => {
  api = harness.api();
  oracle = harness.oracle();
});

const WOMEN: Array<[string, string[]]> = [['GENDER', ['F']]];

describe('search answers in kept buffers', () => {
  it('answers one after another, in reused buffers, each with its own records', async () => {
    const pages = [0, 100, 200, 300].map((skip) => ({ state: 'CA', limit: 100, skip, filters: WOMEN }));
    for (const page of pages) {
      const res = await api.post('/api/audiences/search', page);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: unknown[] };
      expect(body.results).toEqual(oracle.records('CA', WOMEN, page.limit, page.skip));
    }
    // Every answer's buffer came back once sent, and the four answers shared one.
    expect(api.server.answerBuffers.outstanding).toBe(0);
    expect(api.server.answerBuffers.kept).toBe(1);
    // Two answers asked at once: both right (each had a buffer of its own, or the first's once sent).
    const both = await Promise.all(pages.slice(0, 2).map((p) => api.post('/api/audiences/search', p).then((r) => r.json())));
    expect(both.map((b) => (b as { results: unknown[] }).results)).toEqual(
      pages.slice(0, 2).map((p) => oracle.records('CA', WOMEN, p.limit, p.skip)),
    );
    expect(api.server.answerBuffers.outstanding).toBe(0);
    expect(api.server.answerBuffers.kept).toBeGreaterThanOrEqual(1);
  });

  it('does not reuse the buffer of an answer whose client left before it was sent', async () => {
    const pool = new AnswerBuffers(4);
    const buffer = pool.take(1000);
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      pool.returnAfter(buffer, res);
      // Headers only; the client leaves before the body.
      res.writeHead(200, { 'content-length': String(buffer.length) });
      res.flushHeaders();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
        res.destroy();
        resolve();
      });
      req.on('error', () => resolve());
      req.end();
    });
    await new Promise<void>((r) => server.close(() => r()));
    // The response's 'close' comes a turn after its socket's.
    await expect.poll(() => pool.outstanding).toBe(0);
    expect(pool.kept).toBe(0);
    expect(pool.take(1000)).not.toBe(buffer);
  });

  it('hands out the smallest kept buffer that fits', async () => {
    const pool = new AnswerBuffers(4);
    const small = pool.take(1);
    const large = pool.take(3 * 256 * 1024);
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      pool.returnAfter(res.req.url === '/small' ? small : large, res);
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    for (const path of ['/small', '/large']) await (await fetch(`http://127.0.0.1:${port}${path}`)).text();
    await new Promise<void>((r) => server.close(() => r()));
    await expect.poll(() => pool.kept).toBe(2);
    expect(pool.take(10)).toBe(small);
    expect(pool.take(10)).toBe(large);
  });

  it('keeps a few buffers, of the sizes asked, and allocates beyond them', () => {
    const pool = new AnswerBuffers(1, 1 << 20);
    const big = pool.take((1 << 20) + 1);
    expect(big.length).toBe((1 << 20) + 1);
    expect(pool.outstanding).toBe(0);
    const small = pool.take(10);
    expect(small.length).toBeGreaterThanOrEqual(10);
    expect(pool.outstanding).toBe(1);
  });
});
