// Exports of chosen fields with readable values, through the app's handler table (the job, the audit
// entry): a preset or any fields in the order asked, codes or their codebook meanings, CSV and JSON
// Lines, each value compared with the SQL oracle's record; a code the codebook does not know stays the
// bare code; unknown field names are refused naming them, and nothing is written.
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { columnRenderer } from '../../src/core/export/exportColumns';
import { codeLabel } from '../../src/shared/codebook';
import type { ExportJob, Filter } from '../../src/shared/contract';
import { dictionaryEntry } from '../../src/shared/dictionary';
import { EXPORT_PRESETS } from '../../src/shared/exportFields';
import { FIELD_NAMES } from '../../src/shared/fields';
import { failure, startHandlers, type HandlerHarness } from '../handlers/harness';
import { SqlOracle } from '../support/oracle';

let t: HandlerHarness;
let oracle: SqlOracle;
beforeAll(async () => {
  t = await startHandlers(inject('datasetPath'));
  oracle = new SqlOracle(inject('datasetPath'));
});
afterAll(async () => {
  oracle.close();
  await t.close();
});

const FILTERS: Filter[] = [
  ['GENDER', ['F']],
  ['AGE', ['35-54']],
];

async function exported(input: Record<string, unknown>): Promise<ExportJob> {
  const started = await t.h['export/start']({ state: 'WY', filters: FILTERS, ...input } as never);
  const done = await t.api.core.exportJobs.settled(started.id);
  expect(done.status).toBe('done');
  return done;
}

/** The oracle's records of the audience, keyed by PID. */
function expectedByPid(): Map<string, Record<string, unknown>> {
  const rows = oracle.records('WY', FILTERS, 100_000, 0);
  expect(rows.length).toBeGreaterThan(10);
  return new Map(rows.map((r) => [r.PID as string, r]));
}

describe('export of chosen fields', () => {
  it('writes the fields in the order asked, labels for codes, a header of names and labels; the audit entry says so', async () => {
    const fields = ['LNAME', 'EHI', 'AGE', 'MARRIEDCD', 'ZIP', 'PID'];
    const job = await exported({ format: 'csv', fields, values: 'labels', header: 'both', fileName: 'labels' });
    const rows = parse(readFileSync(job.path, 'utf8')) as string[][];
    expect(rows[0]).toEqual(fields);
    expect(rows[1]).toEqual(fields.map((f) => dictionaryEntry(f)!.label));
    const want = expectedByPid();
    expect(rows.length - 2).toBe(want.size);
    let labelled = 0;
    for (const row of rows.slice(2)) {
      const record = want.get(row[5]!)!;
      expect(record, row[5]).toBeDefined();
      fields.forEach((f, k) => {
        const code = record[f] as string | number;
        const label = codeLabel(f, code);
        if (label !== undefined && label !== String(code)) labelled++;
        expect(row[k], `${f} of ${row[5]}`).toBe(String(label ?? code));
      });
    }
    // Income and marital status are coded: their meanings were written, not their codes.
    expect(labelled).toBeGreaterThan(want.size);
    expect(rows.slice(2).some((r) => r[1]!.startsWith('$'))).toBe(true);
    const [entry] = await t.h['audit/list']({ limit: 1 });
    expect(entry!.audience.output).toEqual({ fields, values: 'labels' });
  });

  it('a preset as JSON Lines with codes: exactly the preset fields, values as search gives them', async () => {
    const job = await exported({ format: 'jsonl', fields: ['phone'], fileName: 'phones' });
    const want = expectedByPid();
    const lines = readFileSync(job.path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(want.size);
    for (const line of lines) {
      const obj = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(obj)).toEqual([...EXPORT_PRESETS.phone]);
      const record = want.get(obj.PID as string)!;
      for (const f of EXPORT_PRESETS.phone) expect(obj[f]).toBe(record[f]);
    }
  });

  it('the full record with codes is the plain export, and is recorded without an output', async () => {
    const job = await exported({ format: 'csv', fields: ['full'], values: 'codes', fileName: 'full' });
    expect(readFileSync(job.path, 'utf8').split('\r\n')[0]).toBe(FIELD_NAMES.join(','));
    const [entry] = await t.h['audit/list']({ limit: 1 });
    expect(entry!.audience.output).toBeUndefined();
  });

  it('unknown field names are refused naming each of them, and nothing is written', async () => {
    const before = readdirSync(t.exportDir);
    const audits = (await t.h['audit/list']({ limit: 100 })).length;
    const e = await failure(
      t.h['export/start']({ state: 'WY', filters: [], format: 'csv', fields: ['FNAME', 'INCOME', 'mailing', 'ZIPP'] } as never),
    );
    expect(e).toMatchObject({ code: 'invalid_request', field: 'fields' });
    expect(e.message).toContain('"INCOME"');
    expect(e.message).toContain('"ZIPP"');
    expect(e.message).not.toContain('"FNAME"');
    expect(readdirSync(t.exportDir)).toEqual(before);
    expect(await t.h['audit/list']({ limit: 100 })).toHaveLength(audits);
  });

  it('a code the codebook does not know is written as the bare code', () => {
    const [record] = oracle.records('WY', [], 1, 0);
    const text = JSON.stringify(FIELD_NAMES.map((f) => (f === 'EHI' ? 'Q9' : f === 'MARRIEDCD' ? 'M' : record![f])));
    const csv = columnRenderer({ fields: ['EHI', 'MARRIEDCD'], values: 'labels' }, 'csv')
      .render([text])
      .toString('utf8');
    expect(codeLabel('EHI', 'Q9')).toBeUndefined();
    expect(csv).toBe(`Q9,${codeLabel('MARRIEDCD', 'M')}\r\n`);
  });
});
