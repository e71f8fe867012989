// The benches' latency client (bench/keptBufferClient.ts) reads answers into memory it keeps: it must
// still give back every byte of each answer, one request after another on one connection, answers
// larger than its buffer included, and refuse an answer it cannot delimit instead of timing it wrong.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KeptBufferClient } from '../../bench/keptBufferClient';

let server: Server;
let url: string;
const answerOf = (size: number): Buffer => Buffer.alloc(size, 'abcdefghijklmnopqrstuvwxyz');

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const asked = JSON.parse(Buffer.concat(parts).toString('utf8')) as { size: number; chunked?: boolean; status?: number };
      res.statusCode = asked.status ?? 200;
      if (asked.chunked) {
        res.write(answerOf(asked.size));
        res.end();
      } else res.end(answerOf(asked.size));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('gives back each answer whole, one after another on one connection, growing past its buffer', async () => {
  const client = await KeptBufferClient.connect(url);
  try {
    for (const size of [0, 5, 300_000, 6_000_000, 800_000, 12]) {
      const answer = await client.post('/', { 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ size })));
      expect(answer.status).toBe(200);
      expect(answer.body.equals(answerOf(size))).toBe(true);
      expect(answer.ms).toBeGreaterThan(0);
    }
    const refused = await client.post('/', {}, Buffer.from(JSON.stringify({ size: 3, status: 401 })));
    expect(refused.status).toBe(401);
  } finally {
    client.close();
  }
});

it('refuses an answer without a Content-Length', async () => {
  const client = await KeptBufferClient.connect(url);
  try {
    await expect(client.post('/', {}, Buffer.from(JSON.stringify({ size: 10, chunked: true })))).rejects.toThrow(
      /without a Content-Length/,
    );
  } finally {
    client.close();
  }
});
