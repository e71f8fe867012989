// A several-state export (one file, state after state, as the app writes it) killed with -9 in the
// middle of its first state and in the middle of its last leaves nothing under the chosen name;
// the next export to that name removes the killed one's partial file and writes every state whole.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';

const STATES = ['CA', 'TX'];
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-several-export-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the child until it prints `until` (then kills it with -9), or to its end; what it printed. */
function runChild(target: string, until: string | null): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/export/fixtures/severalStatesExportChild.ts',
      inject('datasetPath'),
      STATES.join(','),
      target,
      join(dir, 'home'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  return new Promise((resolve) => {
    const read = (d: Buffer) => {
      out += d.toString();
      if (until !== null && out.includes(until)) child.kill('SIGKILL');
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', () => resolve(out));
  });
}

describe('a several-state export killed with -9', () => {
  it('leaves nothing under the chosen name, in its first state or its last; the next one writes every state whole', async () => {
    const target = join(dir, 'several.csv');
    const partials = () => readdirSync(dir).filter((n) => n.startsWith(`.${basename(target)}.partial-`));
    for (const state of STATES) {
      const out = await runChild(target, `writing ${state}`);
      expect(out).toContain(`writing ${state}`);
      expect(out).not.toContain('done');
      expect(existsSync(target), out).toBe(false);
      // The killed export's partial file, and nothing else; the next export removes it first.
      expect(partials()).toHaveLength(1);
    }
    const out = await runChild(target, null);
    expect(out.trim().split('\n').at(-1)).toBe('done');
    expect(partials()).toEqual([]);
    const dataset = Dataset.open(inject('datasetPath'));
    const counts = dataset.stateCounts();
    dataset.close();
    const expected = STATES.reduce((n, s) => n + counts.find((c) => c.state === s)!.count, 0);
    const text = readFileSync(target, 'utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = parse(text, { relax_column_count: false }) as string[][];
    expect(rows.length).toBe(expected);
    const stateColumn = header!.indexOf('STATE');
    expect([...new Set(rows.map((r) => r[stateColumn]))]).toEqual(STATES);
  }, 180_000);
});
