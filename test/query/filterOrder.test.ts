// The engine runs the narrowest filter first (predicates.ts, bySelectivity): the answer must not
// depend on the order the filters are named in. Every order of four filters, on a real generated
// file, gives the same count and the same pages; and the guess really puts the narrow one first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { bySelectivity, compilePredicate, DictionaryIndex } from '../../src/core/query/predicates';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';

let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-filter-order-'));
  path = join(dir, 'd.sqlite');
  generateDataset({ rows: 6000, seed: 8, out: path });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILTERS: Array<[string, Array<string | number>]> = [
  ['GENDER', ['F']],
  ['AGE', ['25-64']],
  ['HOMEOWNERC', ['H']],
  ['MARRIEDCD', ['S']],
];

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('filter order', () => {
  it('every order of the same filters gives the same count and pages', () => {
    const engine = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0 });
    try {
      const answers = permutations(FILTERS).map((filters) => {
        const audience = normalizeAudienceRequest({ state: 'CA', filters });
        return { count: engine.count(audience), first: engine.previewPage(audience, 0, 30), deep: engine.previewPage(audience, 40, 30) };
      });
      expect(answers).toHaveLength(24);
      expect(answers[0]!.count).toBeGreaterThan(30);
      for (const a of answers) expect(a).toEqual(answers[0]);
    } finally {
      engine.close();
    }
  });

  it('puts the filter that keeps the fewest first', () => {
    const dataset = Dataset.open(path);
    try {
      const range = dataset.stateRange('CA');
      const dictionaries = new DictionaryIndex(dataset);
      const audience = normalizeAudienceRequest({
        state: 'CA',
        filters: [
          ['GENDER', ['F']],
          ['MARRIEDCD', ['S']],
          ['AGE', ['18-24']],
        ],
      });
      const predicates = audience.filters.map((f) => compilePredicate(dataset, dictionaries, f, range)!);
      const ordered = bySelectivity(predicates, range.first, range.first + range.count);
      const share = (k: number) => {
        const p = predicates[k]!;
        let n = 0;
        for (let i = range.first; i < range.first + range.count; i++) if (p.mask![p.data[i]!] === 1) n++;
        return n;
      };
      const narrowest = [0, 1, 2].sort((a, b) => share(a) - share(b))[0]!;
      expect(ordered[0]).toBe(predicates[narrowest]);
      expect(new Set(ordered)).toEqual(new Set(predicates));
    } finally {
      dataset.close();
    }
  });
});
