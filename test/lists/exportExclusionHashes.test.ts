// Excluding an earlier export finds its people by the PID vector's hashes and reads only their records
// (matchedPeople.ts), not every record of the state. On a real file where a person who was not exported
// has a PID whose hash equals an exported PID's: the people left are exactly the state's people minus
// those exported, that person included; the same as a matcher without the hint, which reads every
// record; and no state's records are read whole.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Audience, RecordMatcher } from '../../src/core/audience/contract/engine';
import { resolveAudience } from '../../src/core/audience/resolveControls';
import { stringHash } from '../../src/core/dataset/codec/columnVector';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { DatasetWriter } from '../../src/core/dataset/write/datasetWriter';
import { generateRecords } from '../../src/core/generate';
import { ExportHistory } from '../../src/core/lists/exportHistory';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { normalizeAudience } from '../../src/shared/audienceRequest';
import { fieldIndex } from '../../src/shared/fields';
import type { Db } from '../../src/core/sqlite';
import { migrate } from '../../src/core/appState/appStateDb';
import { AuditLog } from '../../src/core/appState/auditLog';

const PID = fieldIndex('PID');
const STATE = fieldIndex('STATE');
// Two PIDs with the same FNV-1a hash (found by a search over such strings).
const SENT = 'C0FFEE0000000000000000000001F8CB';
const NOT_SENT = 'C0FFEE00000000000000000000057758';

let dir: string;
let records: Array<Array<string | number>>;
let engine: EmbeddedEngine;
let appState: Database.Database;
let matcher: RecordMatcher;
let exported: Set<string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-export-hashes-'));
  records = [...generateRecords(3000, 21)].map((r) => [...r]);
  const ca = records.filter((r) => r[STATE] === 'CA');
  ca[10]![PID] = SENT;
  ca[20]![PID] = NOT_SENT;
  records.sort((a, b) => (a[STATE]! < b[STATE]! ? -1 : a[STATE]! > b[STATE]! ? 1 : a[PID]! < b[PID]! ? -1 : 1));
  const path = join(dir, 'd.sqlite');
  const writer = new DatasetWriter(path);
  for (const r of records) writer.append(r);
  writer.finish();
  engine = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0 });
  // Every third person of CA and of TX, and SENT, were "exported".
  exported = new Set([SENT]);
  for (const state of ['CA', 'TX'])
    records.filter((r) => r[STATE] === state && r[PID] !== NOT_SENT).forEach((r, k) => k % 3 === 0 && exported.add(r[PID] as string));
  appState = new Database(':memory:');
  // The app state's real tables (the audit log's entries date the exports).
  migrate(appState as unknown as Db);
  const history = new ExportHistory(appState as unknown as Db);
  // The export's audit entry, as the export job writes it when it ends.
  const entry = new AuditLog(appState as unknown as Db).record({
    actor: 'test',
    action: 'export',
    audience: { state: 'CA', filters: [] },
    records: exported.size,
    file: 'exported.csv',
    outcome: 'done',
  });
  history.remember(entry.id, [...exported]);
  matcher = history.matcher(entry.id)!;
}, 120_000);
afterAll(() => {
  engine?.close();
  appState?.close();
  rmSync(dir, { recursive: true, force: true });
});

function excluding(state: string, by: RecordMatcher): Promise<Audience> {
  const none = (): never => {
    throw new Error('not used');
  };
  return resolveAudience(normalizeAudience({ state, filters: [], exclude: ['export:1'] }), {
    export: () => by,
    list: none,
    savedAudience: none,
    zipCentre: none,
  });
}

async function pidsLeft(state: string, by: RecordMatcher): Promise<string[]> {
  const audience = await excluding(state, by);
  const { total, results } = engine.previewPage(audience, 0, 10_000);
  expect(results).toHaveLength(total);
  return results.map((r) => r.pid);
}

describe('excluding an earlier export', () => {
  it('leaves exactly the people it did not write, a PID sharing an exported one’s hash included, reading no state whole', async () => {
    expect(stringHash(SENT)).toBe(stringHash(NOT_SENT));
    expect(matcher.only?.field).toBe('PID');
    const readWhole = vi.spyOn(engine.dataset, 'rangeValues');
    for (const state of ['CA', 'TX', 'NY']) {
      const everyone = records.filter((r) => r[STATE] === state).map((r) => r[PID] as string);
      const left = await pidsLeft(state, matcher);
      expect(left, state).toEqual(everyone.filter((pid) => !exported.has(pid)));
      if (state !== 'NY') expect(left.length, state).toBeLessThan(everyone.length);
    }
    expect(await pidsLeft('CA', matcher)).toContain(NOT_SENT);
    expect(await pidsLeft('CA', matcher)).not.toContain(SENT);
    expect(readWhole).not.toHaveBeenCalled();
    readWhole.mockRestore();
  });

  it('answers as a matcher without the hint, which reads every record', async () => {
    const { only: _hint, ...rest } = matcher;
    const everyRecord: RecordMatcher = { ...rest, key: 'export:1:every-record' };
    for (const state of ['CA', 'TX', 'WY']) expect(await pidsLeft(state, matcher), state).toEqual(await pidsLeft(state, everyRecord));
    expect(engine.countMatching(matcher)).toBe(exported.size);
    expect(engine.countMatching(everyRecord)).toBe(exported.size);
  });
});
