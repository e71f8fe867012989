// An age is in years: 0 to 120 is imported, 121 and anything not a whole number is rejected with a
// reason an analyst can act on, never JavaScript's largest integer.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importFiles } from '../../src/core/import/importFiles';
import { readRejects } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'audience-desk-age-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('AGE on import', () => {
  it('takes 0 to 120 and rejects 121 and 9007199254740992 with the range in years', async () => {
    const file = join(dir, 'ages.csv');
    const rows = [
      'PID,STATE,GENDER,AGE',
      'A0000000000000000000000000000001,CO,F,0',
      'A0000000000000000000000000000002,CO,F,120',
      'A0000000000000000000000000000003,CO,M,121',
      'A0000000000000000000000000000004,CO,M,9007199254740992',
    ];
    writeFileSync(file, rows.join('\n') + '\n');
    const summary = await importFiles({ files: [file], out: join(dir, 'ages.sqlite') });
    expect(summary).toMatchObject({ read: 4, imported: 2, rejected: 2 });
    const rejects = readRejects(summary.rejectsPath);
    expect(rejects.map((r) => [r.line, r.field, r.reason])).toEqual([
      ['4', 'AGE', 'AGE values must be whole numbers of years from 0 to 120, not "121"'],
      ['5', 'AGE', 'AGE values must be whole numbers of years from 0 to 120, not "9007199254740992"'],
    ]);
  });
});
