// The canvas's pure helpers: the field search's ranking, the grid's cells (labels for codes, county
// names), a breakdown as CSV, a cross-tab's totals and shares, and the map's zoom and pan limits.
import { describe, expect, it } from 'vitest';
import { searchFields } from '../../src/renderer/src/lib/filterKinds';
import { cellText, columnHeader, columnId, previewHolds, previewRow } from '../../src/renderer/src/lib/gridColumns';
import { breakdownCsv } from '../../src/renderer/src/stores/breakdown';
import { cellValue, crossTabTotals } from '../../src/renderer/src/lib/crossTabTotals';
import { parseViewBox, useMapZoom } from '../../src/renderer/src/lib/mapZoom';
import { codeLabel } from '../../src/shared/codebook';
import { countyName } from '../../src/shared/geography';
import { dictionaryEntry } from '../../src/shared/dictionary';
import type { CrossTab } from '../../src/shared/contract';

describe('field search ranking', () => {
  it('puts the field whose label starts with the words first', () => {
    expect(searchFields('education', 20)[0]!.def.name).toBe('EDUCATIONCD');
    expect(
      searchFields('income', 20)[0]!.entry.label.toLowerCase().startsWith('income') || searchFields('income', 20)[0]!.def.name === 'EHI',
    ).toBe(true);
  });
});

describe('grid columns', () => {
  it('reads the preview when it holds every column, whole records otherwise', () => {
    expect(previewHolds(['PID', 'CITY'])).toBe(true);
    expect(previewHolds(['PID', 'EHI'])).toBe(false);
    expect(previewRow({ pid: 'p', fname: 'A', lname: 'B', city: 'C', state: 'CA' })).toEqual({
      PID: 'p',
      FNAME: 'A',
      LNAME: 'B',
      CITY: 'C',
      STATE: 'CA',
    });
    expect(columnId('CITY')).toBe('city');
    expect(columnId('EHI')).toBe('EHI');
  });

  it('heads a column with its label and shows codes as their meanings, counties by name', () => {
    expect(columnHeader('EHI').headerName).toBe(dictionaryEntry('EHI')!.label);
    expect(cellText('EHI', { EHI: 'K', STATE: 'CA' })).toBe(codeLabel('EHI', 'K'));
    expect(cellText('CNTYCD', { CNTYCD: '037', STATE: 'CA' })).toBe(countyName('CA', '037'));
    expect(cellText('CITY', { CITY: 'FRESNO' })).toBe('FRESNO');
    expect(cellText('STATE', { STATE: 'DE' })).toBe('DE');
    expect(cellText('EHI', { EHI: '' })).toBe('');
    expect(cellText('EHI', undefined)).toBe('');
  });
});

describe('a breakdown as CSV', () => {
  it('has a line per value with its words and code, the rest, and the total', () => {
    const csv = breakdownCsv(
      'GENDER',
      [
        { value: 'F', count: 30 },
        { value: 'M', count: 10 },
      ],
      10,
      50,
    );
    expect(csv).toBe(
      `GENDER,code,people,percent\r\n${codeLabel('GENDER', 'F')},F,30,60.0\r\n${codeLabel('GENDER', 'M')},M,10,20.0\r\n(values not shown),,10,20.0\r\nTotal,,50,100.0\r\n`,
    );
    expect(breakdownCsv('CNTYCD', [{ value: '037', count: 4 }], 0, 4, 'CA').split('\r\n')[1]).toBe(
      `${countyName('CA', '037')},037,4,100.0`,
    );
  });
});

describe('cross-tab totals', () => {
  const tab: CrossTab = {
    rows: 'A',
    columns: 'B',
    rowValues: ['r1', 'r2'],
    columnValues: ['c1', 'c2'],
    counts: [
      [1, 3],
      [0, 4],
    ],
    total: 10,
    ms: 1,
  };
  it('adds rows and columns over the values shown, and shares of each', () => {
    const t = crossTabTotals(tab);
    expect(t).toEqual({ rows: [4, 4], columns: [1, 7], grand: 8 });
    expect(cellValue(tab, t, 'count', 0, 1)).toBe(3);
    expect(cellValue(tab, t, 'row', 0, 1)).toBe(75);
    expect(cellValue(tab, t, 'column', 0, 1)).toBeCloseTo((100 * 3) / 7);
    expect(cellValue(tab, t, 'row', -1, 1)).toBe(87.5);
    expect(cellValue(tab, t, 'column', 1, -1)).toBe(50);
    expect(cellValue(tab, { rows: [0], columns: [0], grand: 0 }, 'row', 0, -1)).toBe(0);
  });
});

describe('map zoom', () => {
  it('zooms about a point, keeps the view inside the drawing, and resets', () => {
    const box = parseViewBox('0 0 600 400');
    const zoom = useMapZoom(() => box);
    zoom.zoomAt(2, 0, 0);
    expect(zoom.k.value).toBe(2);
    expect(zoom.transform.value).toBe('translate(0.00 0.00) scale(2.0000)');
    // Panning right past the drawing's left edge stops at it.
    zoom.panBy(500, 0);
    expect(zoom.transform.value).toBe('translate(0.00 0.00) scale(2.0000)');
    zoom.panBy(-2000, -2000);
    expect(zoom.transform.value).toBe('translate(-600.00 -400.00) scale(2.0000)');
    zoom.zoomAt(1000);
    expect(zoom.k.value).toBe(32);
    zoom.reset();
    expect(zoom.transform.value).toBe('translate(0.00 0.00) scale(1.0000)');
    zoom.zoomAt(0.1);
    expect(zoom.k.value).toBe(1);
  });
});
