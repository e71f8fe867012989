// Export of full records: every record of the audience, equal to what search returns, in the file's
// order (households by ZIP in a generated file: docs/dataset-format.md, "Record order"), as RFC 4180
// CSV and JSON Lines; atomic (a cancelled export leaves no file and no partial); progress reported.
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { FIELDS, FIELD_NAMES } from '../../src/shared/fields';
import { exportAudience, type ExportHeader, type ExportProgress } from '../../src/core/export/exportAudience';
import { DATA_DICTIONARY } from '../../src/shared/dictionary';
import { startApi, type ApiHarness } from '../support/apiHarness';
import { SqlOracle } from '../support/oracle';

let api: ApiHarness;
let dir: string;
beforeAll(async () => {
  api = await startApi(inject('datasetPath'));
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-export-'));
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const REQUEST = {
  state: 'CA',
  filters: [
    ['GENDER', ['F']],
    ['AGE', ['18-70']],
  ],
};

async function allSearchRecords(): Promise<any[]> {
  const out: any[] = [];
  for (let skip = 0; ; skip += 1000) {
    const body = (await (await api.post('/api/audiences/search', { ...REQUEST, limit: 1000, skip })).json()) as any;
    out.push(...body.results);
    if (skip + 1000 >= body.total) return inStorageOrder(out);
  }
}

/** Search records (PID order) in the order the dataset file stores them: an export's order. */
function inStorageOrder(records: any[]): any[] {
  const oracle = new SqlOracle(inject('datasetPath'));
  try {
    const byPid = new Map(records.map((r) => [r.PID as string, r]));
    return oracle.inStorageOrder([...byPid.keys()]).map((pid) => byPid.get(pid));
  } finally {
    oracle.close();
  }
}

/** Reads a CSV field back to the search response's value: numbers for numeric fields. */
function typed(row: string[]): Record<string, unknown> {
  return Object.fromEntries(FIELDS.map((f, i) => [f.name, f.type === 'string' ? row[i] : Number(row[i])]));
}

describe('export', () => {
  it("writes every record as RFC 4180 CSV equal to the search response (in the file's order), with the field names as header", async () => {
    const out = join(dir, 'audience.csv');
    const progress: ExportProgress[] = [];
    const result = await exportAudience(api.core.engine, normalizeAudienceRequest(REQUEST), {
      format: 'csv',
      outPath: out,
      onProgress: (p) => progress.push(p),
      batchSize: 500,
    });
    const expected = await allSearchRecords();
    expect(result.records).toBe(expected.length);
    expect(expected.length).toBeGreaterThan(1000);
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = parse(text, { relax_column_count: false }) as string[][];
    expect(rows[0]).toEqual(FIELD_NAMES);
    expect(rows.slice(1).map(typed)).toEqual(expected);
    expect(progress.at(-1)).toMatchObject({ written: expected.length, total: expected.length });
  });

  it("writes JSON Lines equal to the search response (in the file's order)", async () => {
    const out = join(dir, 'audience.jsonl');
    await exportAudience(api.core.engine, normalizeAudienceRequest(REQUEST), { format: 'jsonl', outPath: out, batchSize: 500 });
    const lines = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(await allSearchRecords());
  });

  it('gives the same bytes when two exports run at once, each batch rendered into its own reused buffer', async () => {
    const request = normalizeAudienceRequest(REQUEST);
    const alone = join(dir, 'alone.csv');
    await exportAudience(api.core.engine, request, { format: 'csv', outPath: alone, batchSize: 100 });
    const a = join(dir, 'a.csv');
    const b = join(dir, 'b.jsonl');
    const c = join(dir, 'c.csv');
    await Promise.all([
      exportAudience(api.core.engine, request, { format: 'csv', outPath: a, batchSize: 100 }),
      exportAudience(api.core.engine, request, { format: 'jsonl', outPath: b, batchSize: 70 }),
      exportAudience(api.core.engine, request, { format: 'csv', outPath: c, batchSize: 130 }),
    ]);
    expect(readFileSync(a)).toEqual(readFileSync(alone));
    expect(readFileSync(c)).toEqual(readFileSync(alone));
    expect(
      readFileSync(b, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(await allSearchRecords());
  });

  it('exports a whole state without filters, and an empty audience as a header only', async () => {
    const out = join(dir, 'wy.csv');
    const r = await exportAudience(api.core.engine, normalizeAudienceRequest({ state: 'WY' }), { format: 'csv', outPath: out });
    const total = ((await (await api.post('/api/audiences/preview', { state: 'WY', limit: 0 })).json()) as any).total;
    expect(r.records).toBe(total);
    expect((parse(readFileSync(out, 'utf8')) as string[][]).length).toBe(total + 1);
    const none = join(dir, 'none.csv');
    await exportAudience(api.core.engine, normalizeAudienceRequest({ state: 'WY', filters: [['CITY', ['NO SUCH']]] }), {
      format: 'csv',
      outPath: none,
    });
    expect(readFileSync(none, 'utf8')).toBe(FIELD_NAMES.join(',') + '\r\n');
  });

  it('a cancelled export leaves no file under the chosen name and no partial file', async () => {
    const out = join(dir, 'cancelled.csv');
    const controller = new AbortController();
    const run = exportAudience(api.core.engine, normalizeAudienceRequest({ state: 'CA' }), {
      format: 'csv',
      outPath: out,
      batchSize: 50,
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    controller.abort();
    await expect(run).rejects.toThrow(/cancelled/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('cancelled'))).toEqual([]);
  });

  it('refuses an unwritable target with a clear error and leaves nothing behind', async () => {
    const before = readdirSync(dir).sort();
    await expect(
      exportAudience(api.core.engine, normalizeAudienceRequest({ state: 'WY' }), {
        format: 'csv',
        outPath: join(dir, 'missing-dir', 'x.csv'),
      }),
    ).rejects.toThrow(/Cannot write the export/);
    expect(existsSync(join(dir, 'missing-dir'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});

describe('CSV header', () => {
  it('is the field names by default, their dictionary labels, or both rows (names first); the records are the same', async () => {
    const labels = DATA_DICTIONARY.map((e) => e.label);
    expect(new Set(labels).size).toBe(labels.length);
    const rowsOf = async (header?: ExportHeader): Promise<string[][]> => {
      const out = join(dir, `header-${header ?? 'default'}.csv`);
      await exportAudience(api.core.engine, normalizeAudienceRequest({ state: 'WY' }), { format: 'csv', outPath: out, header });
      return parse(readFileSync(out, 'utf8'), { relax_column_count: false }) as string[][];
    };
    const byDefault = await rowsOf();
    expect(byDefault[0]).toEqual(FIELD_NAMES);
    expect(await rowsOf('names')).toEqual(byDefault);
    const labelled = await rowsOf('labels');
    expect(labelled[0]).toEqual(labels);
    expect(labelled.slice(1)).toEqual(byDefault.slice(1));
    const both = await rowsOf('both');
    expect(both.slice(0, 2)).toEqual([FIELD_NAMES, labels]);
    expect(both.slice(2)).toEqual(byDefault.slice(1));
  });
});
