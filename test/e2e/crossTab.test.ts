// End to end, in real Chromium against the real browser mode of `serve`: the cross-tab at the size of
// the canvas (every income column in view at 1440x900), its row and column totals equal to the
// loopback API's counts, row and column percentages, the CSV as shown; and a breakdown saved as CSV.
// Both inside a 1024x700 and a 1440x900 window in both colour schemes, their labels whole.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { api, count, shot } from './support/desk';
import { useDeskInState } from './support/deskInState';
import { cutLabels, cutSelects, overflows, pageOverflow } from './support/layout';

const desk = useDeskInState('CA');

const total = async (filters: Array<[string, string[]]>) =>
  (await api(desk, 'preview', { state: 'CA', limit: 0, filters })).json.total as number;
const SIZES = [
  [1024, 700],
  [1440, 900],
] as const;
const number = (text: string) => Number(text.replace(/[,%]/g, ''));

describe('the cross-tab and the breakdown', () => {
  it('shows every column at full size with totals equal to the API’s counts', async () => {
    const { page } = desk;
    await page.getByTestId('tab-crosstab').click();
    await page.getByTestId('crosstab-rows').selectOption('AGE');
    await page.getByTestId('crosstab-columns').selectOption('EHI');
    const table = page.getByTestId('crosstab-table');
    await expect.poll(() => page.getByTestId('crosstab-total').innerText()).toBe(`${count(await total([]))} people`);
    const codes = await table.locator('thead th[data-code]').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-code')!));
    expect(codes.length).toBeGreaterThanOrEqual(10);
    // Every column, the totals included, is in view without scrolling sideways.
    const scroll = await page.getByTestId('crosstab-scroll').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(scroll.scroll).toBeLessThanOrEqual(scroll.client);
    expect(await overflows(page, ['[data-testid="canvas"]', '[data-testid="crosstab-panel"]'])).toEqual([]);

    // Column totals are the API's count of each income band among the rows shown; the grand total their sum.
    const rows = await table.locator('tbody th').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-code')!));
    for (const c of [0, codes.length - 1]) {
      const expected = await total([
        ['AGE', rows],
        ['EHI', [codes[c]!]],
      ]);
      expect(number(await page.getByTestId(`crosstab-column-total-${c}`).innerText())).toBe(expected);
    }
    const r = rows.indexOf('25-34');
    const rowTotal = number(await page.getByTestId(`crosstab-row-total-${r}`).innerText());
    expect(rowTotal).toBe(
      await total([
        ['AGE', ['25-34']],
        ['EHI', codes],
      ]),
    );
    const grand = number(await page.getByTestId('crosstab-grand-total').innerText());
    expect(grand).toBe(
      await total([
        ['AGE', rows],
        ['EHI', codes],
      ]),
    );
    const cell = number(await page.getByTestId(`crosstab-cell-${r}-0`).innerText());
    await shot(page, 'crosstab-full');

    // Row percentages: the cell is its share of its row, every row total 100%.
    await page.getByTestId('crosstab-measure-row').click();
    expect(await page.getByTestId(`crosstab-cell-${r}-0`).innerText()).toBe(`${((100 * cell) / rowTotal).toFixed(1)}%`);
    expect(new Set(await table.locator('[data-testid^="crosstab-row-total-"]').allInnerTexts())).toEqual(new Set(['100.0%']));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('crosstab-csv').click()]);
    expect(download.suggestedFilename()).toBe('crosstab-AGE-by-EHI-row-percent.csv');
    const lines = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(lines[0]!.startsWith('AGE \\ EHI (Row %),')).toBe(true);
    expect(lines[0]!.endsWith(',Total')).toBe(true);
    expect(lines[1 + r]!.split(',').at(-1)).toBe('100.0%');
    expect(lines.at(-2)!.split(',')[0]).toBe('Total');
    // Column percentages: every column total 100%.
    await page.getByTestId('crosstab-measure-column').click();
    expect(new Set(await table.locator('[data-testid^="crosstab-column-total-"]').allInnerTexts())).toEqual(new Set(['100.0%']));
    await page.getByTestId('crosstab-measure-count').click();
  });

  for (const scheme of ['light', 'dark'] as const)
    for (const [width, height] of SIZES)
      it(`fits a ${width}x${height} window (${scheme}), the table scrolling inside its own box, its labels whole`, async () => {
        const { page } = desk;
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height });
        expect(await overflows(page, ['[data-testid="canvas"]', '[data-testid="crosstab-panel"]'])).toEqual([]);
        expect(await cutLabels(page, '[data-testid="crosstab-table"] th, [data-testid="crosstab-panel"] label')).toEqual([]);
        expect(await cutSelects(page, '[data-testid="crosstab-panel"] select')).toEqual([]);
        expect(await pageOverflow(page)).toEqual({ x: 0, y: 0 });
        await shot(page, `crosstab-${width}x${height}-${scheme}`);
        await page.emulateMedia({ colorScheme: 'light' });
        await page.setViewportSize({ width: 1440, height: 900 });
      });

  it('saves a breakdown as CSV, each value with its count, the county by name', async () => {
    const { page } = desk;
    await page.getByTestId('tab-breakdown').click();
    await page.getByTestId('breakdown-field-search').fill('county');
    await page.getByTestId('field-option-CNTYCD').click();
    await expect.poll(() => page.getByTestId('breakdown-field').innerText()).toBe('CNTYCD');
    await page.getByTestId('breakdown-bar-037').waitFor();
    const bars = await page.locator('[data-testid^="breakdown-bar-"]').evaluateAll((els) =>
      els.map((el) => ({
        code: el.getAttribute('data-value')!,
        text: el.querySelector('.bar-text').textContent.trim(),
        n: el.querySelector('.bar-count').textContent,
      })),
    );
    // County codes read as names (Los Angeles, not 037).
    expect(bars.find((b) => b.code === '037')?.text, JSON.stringify(bars.slice(0, 3))).toBe('Los Angeles');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('breakdown-csv').click()]);
    expect(download.suggestedFilename()).toBe('breakdown-CNTYCD.csv');
    const lines = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('CNTYCD,code,people,percent');
    const body = lines.slice(1).filter((l) => !l.startsWith('Total') && !l.startsWith('(values not shown)'));
    expect(body.map((l) => l.split(',').slice(0, 3))).toEqual(bars.map((b) => [b.text, b.code, String(number(b.n))]));
    expect(lines.at(-1)).toBe(`Total,,${await total([])},100.0`);
    // County names whole (wrapped, not cut) and the breakdown inside the window, at both sizes in both schemes.
    for (const scheme of ['light', 'dark'] as const)
      for (const [width, height] of SIZES) {
        const where = `${width}x${height} (${scheme})`;
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height });
        expect(await overflows(page, ['[data-testid="canvas"]', '[data-testid="canvas-view"]']), where).toEqual([]);
        expect(await overflows(page, ['[data-testid^="breakdown-bar-"]'], true), where).toEqual([]);
        expect(await cutLabels(page, '[data-testid^="breakdown-bar-"] .bar-label'), where).toEqual([]);
        expect(await pageOverflow(page), where).toEqual({ x: 0, y: 0 });
        await shot(page, `breakdown-county-${width}x${height}-${scheme}`);
      }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
