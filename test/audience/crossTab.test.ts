// Cross-tabs and breakdowns are drawn once, in the audience layer (src/core/audience/contract/crossTab.ts,
// breakdown.ts), from an engine's group counts: each axis keeps the `max` values most people hold, a
// tie in count going to the lower value (not to whichever an engine's storage met first), and lists
// them in the field's natural order. On hand-made group counts, then on the embedded engine over the
// shared test dataset, where ties at the cut are common (ClickHouse answers the same: the clickhouse
// project's sameAnswers test).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { breakdownOf } from '../../src/core/audience/contract/breakdown';
import { checkAxis, crossTabOf } from '../../src/core/audience/contract/crossTab';
import type { GroupCount } from '../../src/core/audience/contract/engine';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { compareCodes } from '../../src/shared/codebook';
import type { FieldValue } from '../../src/shared/contract';
import { fieldIndex } from '../../src/shared/fields';

const AGE = fieldIndex('AGE');
const CITY = fieldIndex('CITY');
const GENDER = fieldIndex('GENDER');
const EHI = fieldIndex('EHI');
const LOR = fieldIndex('LOR');

const groups = (rows: Array<[FieldValue, FieldValue, number]>): GroupCount[] => rows.map(([a, b, count]) => ({ values: [a, b], count }));

describe('the cross-tab of group counts', () => {
  it('keeps the most frequent values, a tie in count going to the lower value, listed in the natural order', () => {
    // Counts by CITY: ZED 5, ALPHA 3, MIDDLE 3, BETA 3 — in the order an engine met them.
    const table = crossTabOf(
      CITY,
      GENDER,
      groups([
        ['ZED', 'F', 5],
        ['MIDDLE', 'F', 2],
        ['MIDDLE', 'M', 1],
        ['BETA', 'M', 3],
        ['ALPHA', 'F', 3],
      ]),
      3,
    );
    // ZED, then two of the three tied at 3: ALPHA and BETA (the lower values), in code order.
    expect(table.rowValues).toEqual(['ALPHA', 'BETA', 'ZED']);
    expect(table.columnValues).toEqual(['F', 'M']);
    expect(table.counts).toEqual([
      [3, 0],
      [0, 3],
      [5, 0],
    ]);
    // Everyone counts in the total, MIDDLE's three too.
    expect(table.total).toBe(14);
  });

  it('adds up rows that repeat a combination (several states), and bands AGE', () => {
    const table = crossTabOf(
      AGE,
      LOR,
      groups([
        [70, 3, 2],
        [19, 10, 1],
        [70, 3, 4],
        [30, 3, 1],
        [-1, 3, 7],
      ]),
      10,
    );
    // A stray age in no band is in the total only.
    expect(table.rowValues).toEqual(['18-24', '25-34', '65+']);
    expect(table.columnValues).toEqual([3, 10]);
    expect(table.counts).toEqual([
      [0, 1],
      [1, 0],
      [6, 0],
    ]);
    expect(table.total).toBe(15);
  });

  it('lists coded values in the codebook order', () => {
    const codes = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L'];
    const table = crossTabOf(EHI, GENDER, groups(codes.map((c, i) => [c, 'F', 100 - i])), 30);
    expect(table.rowValues).toEqual([...codes].sort(compareCodes('EHI')));
  });

  it('refuses a coordinate or a hashed field with one message, naming the axis', () => {
    expect(() => checkAxis(fieldIndex('LATITUDE'), false, 'rows')).toThrow(/LATITUDE has a different value for nearly everyone/);
    expect(() => checkAxis(CITY, true, 'columns')).toThrow(expect.objectContaining({ field: 'columns' }));
    expect(() => checkAxis(CITY, false, 'rows')).not.toThrow();
  });

  it('breakdowns break ties the same way', () => {
    const values = breakdownOf(
      CITY,
      [
        { values: ['ZED'], count: 2 },
        { values: ['BETA'], count: 1 },
        { values: ['ALPHA'], count: 2 },
        { values: ['BETA'], count: 1 },
      ],
      2,
    );
    // All three hold 2 (BETA's two rows added up): the two lowest values are kept.
    expect(values).toEqual([
      { value: 'ALPHA', count: 2 },
      { value: 'BETA', count: 2 },
    ]);
  });
});

describe('ties on the embedded engine', () => {
  let engine: EmbeddedEngine;
  beforeAll(() => {
    engine = new EmbeddedEngine(Dataset.open(inject('datasetPath')), { backgroundVerify: false });
  });
  afterAll(() => engine.close());

  it('keeps the lower value of those tied at the cut, whatever their dictionary codes', () => {
    let ties = 0;
    for (const state of ['WY', 'VT', 'AK', 'DE']) {
      const audience = normalizeAudienceRequest({ state, filters: [['GENDER', ['F']]] });
      const full = engine.crossTab(audience, CITY, GENDER, 100_000);
      const totals = full.rowValues.map((value, i) => ({ value, count: full.counts[i]!.reduce((a, b) => a + b, 0) }));
      for (const max of [1, 2, 3, 5, 8, 13]) {
        if (max >= totals.length) break;
        const ranked = [...totals].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
        if (ranked[max - 1]!.count === ranked[max]!.count) ties++;
        const expected = ranked
          .slice(0, max)
          .map((e) => e.value)
          .sort(compareCodes('CITY'));
        expect(engine.crossTab(audience, CITY, GENDER, max).rowValues, `${state} ${max}`).toEqual(expected);
      }
    }
    // The rule was put to the test: some cuts fell between values of the same count.
    expect(ties).toBeGreaterThan(3);
  });
});
