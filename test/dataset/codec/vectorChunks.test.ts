// Format 5 keeps each vector in chunks and a query reads those of its state only (issue 16: the
// first use of a field costs a state's share of the file). Checked on a real generated file with
// small chunks: the values a range loads are the whole vector's, the engine answers as it does on a
// file with one chunk a vector, a query never reads another state's chunks, and a damaged chunk is
// `dataset_damaged` for the states it holds and nobody else.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { verifyDatasetFile } from '../../../src/core/dataset/verify/verifyFile';
import { generateDataset } from '../../../src/core/generate';
import { DATASET_FORMAT_VERSION } from '../../../src/core/dataset/format/schema';
import { EmbeddedEngine } from '../../../src/core/query/embeddedEngine';
import { randomFrom } from '../../../src/core/audience/contract/listSteps';
import { openSqlite } from '../../../src/core/sqlite';
import { normalizeAudienceRequest } from '../../../src/shared/audienceRequest';
import { AppError } from '../../../src/shared/errors';
import { FIELDS, fieldIndex } from '../../../src/shared/fields';

const ROWS = 4000;
const CHUNK = 128;
let dir: string;
let chunked: string;
let whole: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-chunks-'));
  chunked = join(dir, 'chunked.sqlite');
  whole = join(dir, 'whole.sqlite');
  generateDataset({ rows: ROWS, seed: 5, out: chunked, vectorChunk: CHUNK });
  generateDataset({ rows: ROWS, seed: 5, out: whole, vectorChunk: ROWS });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const filterable = FIELDS.map((f, i) => ({ f, i })).filter(({ f }) => f.type !== 'number');

/** How many vector chunks a dataset has read so far: counted at the SQL statement it reads them with. */
function countChunkReads(dataset: Dataset): () => number {
  const vectors = (dataset as unknown as { vectors: { chunkStmt: { get: (...a: unknown[]) => unknown } } }).vectors;
  const stmt = vectors.chunkStmt;
  const get = stmt.get.bind(stmt);
  let reads = 0;
  stmt.get = (...args: unknown[]) => {
    reads++;
    return get(...args);
  };
  return () => reads;
}

describe('vector chunks', () => {
  it('a range loads the values of the whole vector there, whatever chunks it starts and ends in', () => {
    const reference = Dataset.open(whole);
    const rnd = randomFrom(42);
    try {
      for (let round = 0; round < 30; round++) {
        const dataset = Dataset.open(chunked);
        try {
          const first = Math.floor(rnd() * ROWS);
          const count = Math.floor(rnd() * Math.min(700, ROWS - first)) + 1;
          for (let k = 0; k < 4; k++) {
            const { i, f } = filterable[Math.floor(rnd() * filterable.length)]!;
            const got = dataset.column(i, { first, count });
            const want = reference.column(i, 'all');
            expect(got.encoding, f.name).toBe(want.encoding);
            expect(got.dict, f.name).toEqual(want.dict);
            expect([...got.data.subarray(first, first + count)], `${f.name} [${first}, +${count})`).toEqual([
              ...want.data.subarray(first, first + count),
            ]);
          }
        } finally {
          dataset.close();
        }
      }
    } finally {
      reference.close();
    }
  });

  it('answers counts, pages, breakdowns and cross-tabs as a file with one chunk a vector', () => {
    const engines = [chunked, whole].map((path) => new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false }));
    try {
      const answers = engines.map((engine) =>
        ['CA', 'TX', 'WY', 'NY'].map((state) => {
          const audience = normalizeAudienceRequest({
            state,
            filters: [
              ['GENDER', ['F']],
              ['AGE', ['25-64']],
              ['HOMEOWNERC', ['O', 'R']],
            ],
          });
          return {
            count: engine.count(audience),
            page: engine.previewPage(audience, 5, 20),
            breakdown: engine.valueCounts(audience, fieldIndex('INCOMECD'), 20),
            crossTab: engine.crossTab(audience, fieldIndex('MARRIEDCD'), fieldIndex('EDUCATIONCD'), 20),
          };
        }),
      );
      expect(answers[0]![0]!.count).toBeGreaterThan(0);
      expect(answers[0]).toEqual(answers[1]);
    } finally {
      for (const engine of engines) engine.close();
    }
  });

  it("reads only the chunks of the audience's state, once", () => {
    const dataset = Dataset.open(chunked);
    const engine = new EmbeddedEngine(dataset, { backgroundVerify: false, selectionCacheBytes: 0 });
    const reads = countChunkReads(dataset);
    try {
      const range = dataset.stateRange('WY');
      expect(range.count).toBeGreaterThan(0);
      const chunks = Math.floor((range.first + range.count - 1) / CHUNK) - Math.floor(range.first / CHUNK) + 1;
      const audience = normalizeAudienceRequest({ state: 'WY', filters: [['GENDER', ['M']]] });
      engine.count(audience);
      expect(reads()).toBe(chunks);
      engine.count(audience);
      expect(reads()).toBe(chunks);
      expect(Math.ceil(ROWS / CHUNK)).toBeGreaterThan(chunks * 4);
    } finally {
      engine.close();
    }
  });

  it('a damaged chunk is dataset_damaged for the states it holds, and other states still answer', () => {
    const damaged = join(dir, 'damaged.sqlite');
    copyFileSync(chunked, damaged);
    const probe = Dataset.open(damaged);
    const ca = probe.stateRange('CA');
    const wy = probe.stateRange('WY');
    probe.close();
    // A chunk wholly inside California's positions, which WY's positions do not reach.
    const chunk = Math.floor(ca.first / CHUNK) + 1;
    expect((chunk + 1) * CHUNK).toBeLessThanOrEqual(ca.first + ca.count);
    expect(wy.first >= (chunk + 1) * CHUNK || wy.first + wy.count <= chunk * CHUNK).toBe(true);
    const db = openSqlite(damaged);
    db.prepare("UPDATE vector_chunks SET data = substr(data, 1, length(data) - 3) || x'000000' WHERE name = 'GENDER' AND chunk = ?").run(
      chunk,
    );
    db.close();

    const engine = new EmbeddedEngine(Dataset.open(damaged), { backgroundVerify: false });
    const reference = new EmbeddedEngine(Dataset.open(whole), { backgroundVerify: false });
    try {
      const wyoming = normalizeAudienceRequest({ state: 'WY', filters: [['GENDER', ['F']]] });
      expect(engine.count(wyoming)).toBe(reference.count(wyoming));
      let error: unknown;
      try {
        engine.count(normalizeAudienceRequest({ state: 'CA', filters: [['GENDER', ['F']]] }));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('dataset_damaged');
      expect((error as AppError).message).toContain(`chunk ${chunk} of the vector of GENDER`);
    } finally {
      engine.close();
      reference.close();
    }
    const verdict = verifyDatasetFile(damaged);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.message).toContain(`chunk ${chunk} of the vector of GENDER fails its checksum`);
    expect(verifyDatasetFile(chunked)).toMatchObject({ ok: true, records: ROWS, formatVersion: DATASET_FORMAT_VERSION });
  });
});
