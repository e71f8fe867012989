// The list controls' one pipeline (src/core/audience/contract/listSteps.ts), which both engines run over their
// own primitives: on a hand-made source of ten people, where each step removes people known in
// advance, the steps run in extensions.md's order, count what each keeps, ask only for what the
// controls need, and check the budget before each exclusion.
import { describe, expect, it } from 'vitest';
import type { Exclusion, ResolvedControls } from '../../src/core/audience/contract/engine';
import { runListSteps, type ListPrimitives } from '../../src/core/audience/contract/listSteps';

// Ten people, ids 100..109 (a state's positions start at 100), in PID order.
const FIRST = 100;
const IDS = Array.from({ length: 10 }, (_, k) => FIRST + k);
// Everyone at the origin but 101 and 102, a degree of longitude away (about 69 miles).
const FAR = new Set([101, 102]);
const NOT_CALLABLE = new Set([103]);
const NOT_DELIVERABLE = new Set([104]);
const EXCLUDED = [new Set([105]), new Set([106, 105])];
// 107 and 108 share a household (108 has the higher PID); everyone else lives alone.
const HOUSEHOLD = IDS.map((id) => (id === 108 ? 107 : id) - FIRST);

const PEOPLE_EXCLUSION: Exclusion = {
  kind: 'people',
  matcher: { key: 'm', fields: [], matches: () => false },
};

function controls(overrides: Partial<ResolvedControls> = {}): ResolvedControls {
  return {
    near: null,
    contact: { phone: false, mail: false },
    exclusions: [],
    inclusions: [],
    like: null,
    households: 'all',
    sample: null,
    key: 'test',
    ...overrides,
  };
}

/** The hand-made source, recording what the pipeline asked of it, in order. */
function source(asked: string[]): ListPrimitives {
  return {
    first: FIRST,
    coordinates: () => {
      asked.push('coordinates');
      return Float64Array.from(IDS.flatMap((id) => [0, FAR.has(id) ? 1 : 0]));
    },
    callable: () => {
      asked.push('callable');
      return (id) => !NOT_CALLABLE.has(id);
    },
    deliverable: () => {
      asked.push('deliverable');
      return (id) => !NOT_DELIVERABLE.has(id);
    },
    excluded: (_exclusion, index) => {
      asked.push(`excluded ${index}`);
      return (id) => EXCLUDED[index]!.has(id);
    },
    households: () => {
      asked.push('households');
      return Uint32Array.from(HOUSEHOLD);
    },
    likeScores: () => {
      asked.push('likeScores');
      return (id) => id;
    },
    checkBudget: () => asked.push('budget'),
  };
}

const run = (c: ResolvedControls, asked: string[] = []) => {
  const { kept, steps } = runListSteps(Uint32Array.from(IDS), c, source(asked));
  return { kept: [...kept], steps };
};

describe('the list steps', () => {
  it('runs near, contact, exclusions, households and the sample in order, counting each step', () => {
    const asked: string[] = [];
    // 50 miles: the origin is in, a degree of longitude (69 miles) is not.
    const all = controls({
      near: { lat: 0, lon: 0, miles: 50 },
      contact: { phone: true, mail: true },
      exclusions: [PEOPLE_EXCLUSION, PEOPLE_EXCLUSION],
      households: 'one',
      sample: { every: 2 },
    });
    const { kept, steps } = run(all, asked);
    // near drops 101, 102 (matched: 8); contact 103, 104; exclusions 105, 106 (afterExclusions: 4:
    // 100, 107, 108, 109); one a household drops 108 (3); every 2nd keeps 100 and 109.
    expect(steps).toEqual({ filtered: 10, matched: 8, afterContact: 6, afterExclusions: 4, afterHouseholds: 3, total: 2 });
    expect(kept).toEqual([100, 109]);
    expect(asked).toEqual(['coordinates', 'callable', 'deliverable', 'budget', 'excluded 0', 'budget', 'excluded 1', 'households']);
  });

  it('asks nothing and keeps everyone without controls that change anything', () => {
    const asked: string[] = [];
    expect(run(controls(), asked)).toEqual({
      kept: IDS,
      steps: { filtered: 10, matched: 10, afterContact: 10, afterExclusions: 10, afterHouseholds: 10, total: 10 },
    });
    expect(asked).toEqual([]);
  });

  it('counts each control at its own step', () => {
    expect(run(controls({ near: { lat: 0, lon: 0, miles: 50 } })).steps).toEqual({
      filtered: 10,
      matched: 8,
      afterContact: 8,
      afterExclusions: 8,
      afterHouseholds: 8,
      total: 8,
    });
    expect(run(controls({ contact: { phone: true, mail: false } })).steps).toEqual({
      filtered: 10,
      matched: 10,
      afterContact: 9,
      afterExclusions: 9,
      afterHouseholds: 9,
      total: 9,
    });
    expect(run(controls({ households: 'one' }))).toEqual({
      kept: IDS.filter((id) => id !== 108),
      steps: { filtered: 10, matched: 10, afterContact: 10, afterExclusions: 10, afterHouseholds: 9, total: 9 },
    });
    expect(run(controls({ sample: { size: 3, seed: 7 } })).steps).toEqual({
      filtered: 10,
      matched: 10,
      afterContact: 10,
      afterExclusions: 10,
      afterHouseholds: 10,
      total: 3,
    });
  });

  it('keeps the lowest PID of a household: the first in the list', () => {
    // Without 107 (a callable test that drops it), 108 is the household's first and stays.
    const asked: string[] = [];
    const src = { ...source(asked), callable: () => (id: number) => id !== 107 };
    const { kept } = runListSteps(Uint32Array.from(IDS), controls({ contact: { phone: true, mail: false }, households: 'one' }), src);
    expect([...kept]).toContain(108);
    expect([...kept]).not.toContain(107);
  });

  it('samples a size in PID order, the same people for the same seed, whichever ids stand for them', () => {
    const sample = controls({ sample: { size: 4, seed: 42 } });
    const a = run(sample).kept;
    expect(a).toEqual([...a].sort((x, y) => x - y));
    expect(a).toHaveLength(4);
    // Row numbers (ClickHouse's candidates) choose the same people as positions (the embedded engine's).
    const rows = runListSteps(Uint32Array.from(IDS.map((id) => id - FIRST)), sample, { ...source([]), first: 0 });
    expect([...rows.kept].map((k) => k + FIRST)).toEqual(a);
  });

  it('stops when the budget is spent before an exclusion', () => {
    const src = {
      ...source([]),
      checkBudget: () => {
        throw new Error('spent');
      },
    };
    expect(() => runListSteps(Uint32Array.from(IDS), controls({ exclusions: [PEOPLE_EXCLUSION] }), src)).toThrow('spent');
  });
});
