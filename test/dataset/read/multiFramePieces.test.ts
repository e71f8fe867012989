// Issue 32: files already written with pieces of more than one zstd frame are the valid files they
// are. A generated file is copied and every stored piece of the copy (record blocks, vector chunks
// but the packed ones, which are no zstd stream, list keys, PID ranks) is written again as its content split over two frames and followed by an
// empty frame, as an older writer could leave them, with its checksum made anew. The copy then
// verifies clean (in this process, in the background verify's worker and through `cli verify`), and
// the real HTTP server answers on it byte for byte as on the original.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideSettings } from '../../../src/core/config';
import { RECORDS_PER_BLOCK, recordBlockCrc } from '../../../src/core/dataset/codec/blockCodec';
import { VECTOR_TYPES, type VectorKind } from '../../../src/core/dataset/codec/columnVector';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { startBackgroundVerify } from '../../../src/core/dataset/verify/verify';
import { verifyDatasetFile } from '../../../src/core/dataset/verify/verifyFile';
import { ChunkLayout } from '../../../src/core/dataset/codec/vectorChunks';
import { isPacked } from '../../../src/core/dataset/codec/packedChunks';
import { zstdFrames } from '../../../src/core/dataset/codec/zstdFrames';
import { generateDataset } from '../../../src/core/generate';
import { openSqlite } from '../../../src/core/sqlite';
import { startApi } from '../../support/apiHarness';

const ROWS = 3000;
const CHUNK = 256;
const EMPTY_FRAME = zstdCompressSync(Buffer.alloc(0));

/** A piece's content as two frames and an empty one: what a valid zstd stream may hold. */
function asSeveralFrames(piece: Uint8Array): Buffer {
  const content = zstdDecompressSync(piece);
  const half = content.byteLength >> 1;
  return Buffer.concat([zstdCompressSync(content.subarray(0, half)), zstdCompressSync(content.subarray(half)), EMPTY_FRAME]);
}

/** Rewrites every stored piece of `path` in several frames; how many of each kind it rewrote. */
function rewritePieces(path: string): Record<string, number> {
  const db = openSqlite(path);
  const meta = (key: string) => (db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined) ?? '';
  const records = Number(meta('records'));
  const layout = new ChunkLayout(Number(meta('vector_chunk')));
  const rewritten: Record<string, number> = {};
  const chunkRows = (table: string, crcName: (name: string) => string, lengthOf: (name: string) => number) => {
    const where = table === 'pid_ranks' ? 'chunk = ?' : 'name = ? AND chunk = ?';
    const update = db.prepare(`UPDATE ${table} SET crc = ?, data = ? WHERE ${where}`);
    const rows = db.prepare(`SELECT ${table === 'pid_ranks' ? "'' AS name" : 'name'}, chunk, data FROM ${table}`).all() as Array<{
      name: string;
      chunk: number;
      data: Buffer;
    }>;
    for (const { name, chunk, data } of rows) {
      // A packed chunk (format 8: a field's small byte values) is no zstd stream; it stays as written.
      if (isPacked(data)) continue;
      const piece = asSeveralFrames(data);
      const crc = layout.crcOf(crcName(name), chunk, layout.values(chunk, lengthOf(name)), piece);
      if (table === 'pid_ranks') update.run(crc, piece, chunk);
      else update.run(crc, piece, name, chunk);
    }
    rewritten[table] = rows.filter((r) => !isPacked(r.data)).length;
  };
  db.transaction(() => {
    const columns = new Map(
      (db.prepare('SELECT name, kind, length FROM columns').all() as Array<{ name: string; kind: VectorKind; length: number }>).map((c) => [
        c.name,
        c,
      ]),
    );
    chunkRows(
      'vector_chunks',
      (name) => name,
      (name) => columns.get(name)!.length,
    );
    chunkRows(
      'list_keys',
      (name) => `list key ${name}`,
      () => records,
    );
    chunkRows(
      'pid_ranks',
      () => 'pid ranks',
      () => records,
    );
    const update = db.prepare('UPDATE record_blocks SET crc = ?, data = ? WHERE block = ?');
    const blocks = db.prepare('SELECT block, data FROM record_blocks').all() as Array<{ block: number; data: Buffer }>;
    for (const { block, data } of blocks) {
      const piece = asSeveralFrames(data);
      update.run(recordBlockCrc(block, Math.min(RECORDS_PER_BLOCK, records - block * RECORDS_PER_BLOCK), piece), piece, block);
    }
    rewritten.record_blocks = blocks.length;
    // Every kind of vector is among the rewritten (the property test covers their shapes).
    expect(new Set([...columns.values()].map((c) => c.kind)).size).toBeGreaterThan(1);
    expect(Object.keys(VECTOR_TYPES)).toEqual(expect.arrayContaining([...new Set([...columns.values()].map((c) => c.kind))]));
  })();
  const sample = db.prepare("SELECT data FROM vector_chunks WHERE name = 'PID' LIMIT 1").pluck().get() as Buffer;
  expect(zstdFrames(sample)!.length).toBe(3);
  db.close();
  return rewritten;
}

/** What the API answers, across states, filters, depths and list steps. */
const REQUESTS: Array<[string, object]> = [
  ['/api/audiences/preview', { state: 'CA', limit: 50 }],
  ['/api/audiences/preview', { state: 'CA', limit: 20, skip: 150, filters: [['GENDER', ['F']]] }],
  ['/api/audiences/search', { state: 'TX', limit: 100 }],
  ['/api/audiences/search', { state: 'NY', limit: 40, skip: 30, filters: [['AGE', ['25-44', '65+']]] }],
  ['/api/audiences/preview', { state: 'FL', limit: 30, filters: [['HOMEOWNERC', ['H']]], households: 'one' }],
  ['/api/audiences/preview', { state: 'OH', limit: 0, filters: [['LOR', ['1', '2', '3']]] }],
];

async function answers(path: string): Promise<string[]> {
  const api = await startApi(path);
  try {
    const out: string[] = [];
    for (const [route, body] of REQUESTS) {
      const res = await api.post(route, body);
      out.push(`${res.status} ${await res.text()}`);
    }
    return out;
  } finally {
    await api.close();
  }
}

let dir: string;
let original: string;
let rewritten: string;
let counts: Record<string, number>;
let restore: () => void;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-frames-'));
  original = join(dir, 'original.sqlite');
  rewritten = join(dir, 'rewritten.sqlite');
  generateDataset({ rows: ROWS, seed: 32, out: original, vectorChunk: CHUNK });
  copyFileSync(original, rewritten);
  counts = rewritePieces(rewritten);
  // The background verify has a test of its own below; here it would only race the answers.
  restore = overrideSettings({ backgroundVerify: false });
}, 120_000);

afterAll(() => {
  restore();
  rmSync(dir, { recursive: true, force: true });
});

describe('a file whose pieces hold several zstd frames', () => {
  it('had every kind of piece rewritten', () => {
    expect(counts.record_blocks).toBe(Math.ceil(ROWS / RECORDS_PER_BLOCK));
    expect(counts.vector_chunks).toBeGreaterThan(300);
    expect(counts.pid_ranks).toBe(Math.ceil(ROWS / CHUNK));
  });

  it('verifies clean, here and through `cli verify`', () => {
    expect(verifyDatasetFile(rewritten)).toEqual({ ok: true, path: rewritten, records: ROWS, formatVersion: expect.any(String) });
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'verify', '--db', rewritten], { encoding: 'utf8' });
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
    expect(cli.stdout).toMatch(/^ok: .*rewritten\.sqlite: 3000 records/);
  });

  it("finds nothing in the background verify's worker", async () => {
    const dataset = Dataset.open(rewritten);
    try {
      const found: string[] = [];
      const sound = await new Promise<boolean>((resolve) =>
        startBackgroundVerify(dataset, { onDamage: (message) => found.push(message), delayMs: 0, onFinished: resolve }),
      );
      expect(sound).toBe(true);
      expect(found).toEqual([]);
      expect(dataset.damage).toBeNull();
    } finally {
      dataset.close();
    }
  });

  it('answers every request byte for byte as the original file does', async () => {
    const want = await answers(original);
    expect(want.every((a) => a.startsWith('200 '))).toBe(true);
    expect(await answers(rewritten)).toEqual(want);
  });
});
