// End to end, in real Chromium against the real browser mode of `serve`: the canvas in the centre
// (people, map, cross-tab and breakdown as views of one audience), the filter panel widened and kept,
// nothing outside a 1024x700 or 1440x900 window in either colour scheme, the people grid back at its
// first row when the audience changes, its row numbers room for eight digits, any field as a column
// headed by its label with coded values as their meanings, and the field search's ranking.
import { describe, expect, it } from 'vitest';
import type { Response } from 'playwright-core';
import { codeLabel } from '../../src/shared/codebook';
import { COUNTY_NAMES } from '../../src/shared/countyNames';
import { dictionaryEntry } from '../../src/shared/dictionary';
import { api, count, rpcSettled, shot } from './support/desk';
import { useDeskInState } from './support/deskInState';
import { atEverySize, cutLabels, cutSelects, outsideWindow, overflows, pageOverflow } from './support/layout';

const desk = useDeskInState('CA');

const countText = () => desk.page.getByTestId('audience-count').innerText();
/** Every tab of the canvas, as the page lists them (a view added to components/canvas/views.ts is in it). */
const canvasTabs = () =>
  desk.page.locator('[data-testid="canvas"] [role="tab"]').evaluateAll((els) => els.map((el) => el.dataset.testid.replace(/^tab-/, '')));
const PANELS = [
  '#builder-region',
  '[data-testid="builder"]',
  '[data-testid="list-controls"]',
  '[data-testid="count-bar"]',
  '[data-testid="canvas"]',
  '[data-testid="canvas-view"]',
];

/** The words of the tabs and of the view shown that must be whole: tabs, headings, labels, buttons. */
const VIEW_LABELS = [
  '[role="tab"]',
  ...['h2', 'h3', 'label', 'button', 'legend', 'th', 'summary'].map((tag) => `[data-testid="canvas-view"] ${tag}:not(.sr-only)`),
].join(', ');
const SIZES = [
  [1024, 700],
  [1440, 900],
] as const;
const SCHEMES = ['light', 'dark'] as const;

describe('the canvas', () => {
  for (const scheme of ['light', 'dark'] as const)
    for (const [width, height] of [
      [1024, 700],
      [1440, 900],
    ] as const)
      it(`puts every view in the centre, inside a ${width}x${height} window (${scheme})`, async () => {
        const { page } = desk;
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height });
        const tabs = await canvasTabs();
        expect(tabs.slice(0, 4)).toEqual(['people', 'map', 'crosstab', 'breakdown']);
        for (const view of tabs) {
          await page.getByTestId(`tab-${view}`).click();
          await page.getByTestId('canvas-view').locator('> *').first().waitFor();
          // Measured loaded (its tables, report and map in), not as its first render.
          await rpcSettled(desk);
          expect(await overflows(page, PANELS), view).toEqual([]);
          // The view takes the rest of the window beside the builder: well over half of it.
          const canvas = (await page.getByTestId('canvas').boundingBox())!;
          expect(canvas.width, view).toBeGreaterThan(width * 0.6);
          expect(await outsideWindow(page, '[role="tab"]'), view).toEqual([]);
          expect(await cutLabels(page, VIEW_LABELS), view).toEqual([]);
          expect(await cutSelects(page, '[data-testid="canvas-view"] select'), view).toEqual([]);
          expect(await pageOverflow(page), view).toEqual({ x: 0, y: 0 });
        }
        await page.getByTestId('tab-people').click();
        await shot(page, `canvas-${width}x${height}-${scheme}`);
      });

  it('opens a person in the record drawer inside the window, labels whole, the county by name, at both sizes in both schemes', async () => {
    const { page } = desk;
    await page.getByTestId('tab-people').click();
    await page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().click();
    await page.getByTestId('record-title').filter({ hasNotText: 'Loading' }).waitFor();
    const first = (await api(desk, 'search', { state: 'CA', limit: 1 })).json.results[0] as Record<string, string>;
    const county = page.locator('[data-testid="record-drawer"] dd', { hasText: COUNTY_NAMES[`06${first.CNTYCD}`]! });
    expect(await county.count()).toBeGreaterThan(0);
    await atEverySize(page, async (where) => {
      expect(await overflows(page, ['[data-testid="record-drawer"]']), where).toEqual([]);
      expect(await overflows(page, ['[data-testid="record-drawer"] dl'], true), where).toEqual([]);
      expect(
        await cutLabels(
          page,
          '[data-testid="record-drawer"] h2, [data-testid="record-drawer"] h3, [data-testid="record-drawer"] dt, [data-testid="record-drawer"] dd',
        ),
        where,
      ).toEqual([]);
      expect(await pageOverflow(page), where).toEqual({ x: 0, y: 0 });
    });
    await page.getByTestId('record-close').click();
    await page.getByTestId('record-drawer').waitFor({ state: 'detached' });
  });

  it('widens the filter panel by its handle (keys and drag) and keeps the width across a reload', async () => {
    const { page } = desk;
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
    const builderWidth = async () => (await page.locator('#builder-region').boundingBox())!.width;
    const before = await builderWidth();
    await page.getByTestId('builder-resizer').focus();
    await page.keyboard.press('Enter');
    await expect.poll(builderWidth).toBeGreaterThan(before + 100);
    const wide = await builderWidth();
    // Dragging the handle 60 px to the left narrows it by as much.
    const handle = (await page.getByTestId('builder-resizer').boundingBox())!;
    // The widths the page saves, watched from before the drag: the save goes 300 ms after the last
    // move, which a slow machine may pass before the poll below ends.
    const saved: Array<{ width?: number; ok: boolean }> = [];
    const onResponse = (r: Response) => {
      if (!r.url().endsWith('/ui/rpc/workspace/set')) return;
      saved.push({ width: (JSON.parse(r.request().postData() ?? '{}') as { builderWidth?: number }).builderWidth, ok: r.ok() });
    };
    page.on('response', onResponse);
    await page.mouse.move(handle.x + handle.width / 2, handle.y + 200);
    await page.mouse.down();
    await page.mouse.move(handle.x + handle.width / 2 - 60, handle.y + 200, { steps: 4 });
    await page.mouse.up();
    await expect.poll(builderWidth).toBeCloseTo(wide - 60, -1);
    const kept = await builderWidth();
    await expect.poll(() => saved.find((s) => s.width === Math.round(kept))).toEqual({ width: Math.round(kept), ok: true });
    page.off('response', onResponse);
    await page.reload();
    await page.getByTestId('dataset-info').waitFor();
    await expect.poll(builderWidth).toBeCloseTo(kept, 0);
    // Back to the normal width for the tests that follow.
    await page.getByTestId('builder-resizer').focus();
    await page.keyboard.press('Enter');
    await expect.poll(builderWidth).toBeLessThan(kept);
  });

  it('starts the grid at the first row when the audience changes', async () => {
    const { page } = desk;
    await page.getByTestId('tab-people').click();
    const total = (await api(desk, 'preview', { state: 'CA', limit: 0 })).json.total;
    await expect.poll(countText).toBe(count(total));
    await page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().waitFor();
    const box = (await page.getByTestId('preview-grid').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 60 * 34);
    await expect.poll(() => page.getByTestId('grid-range').innerText()).not.toMatch(/^Rows 1–/);
    const women = (await api(desk, 'preview', { state: 'CA', limit: 0, filters: [['GENDER', ['F']]] })).json.total;
    await page.getByTestId('field-search').fill('gender');
    await page.getByTestId('field-option-GENDER').click();
    await page.getByTestId('value-GENDER-F').locator('input').check();
    await page.getByTestId('filter-done').click();
    await expect.poll(countText).toBe(count(women));
    await expect.poll(() => page.getByTestId('grid-range').innerText()).toMatch(new RegExp(`^Rows 1–\\d+ of ${count(women)}$`));
    // The state too.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 60 * 34);
    await expect.poll(() => page.getByTestId('grid-range').innerText()).not.toMatch(/^Rows 1–/);
    await page.getByTestId('state-select').selectOption('TX');
    await expect.poll(() => page.getByTestId('grid-range').innerText()).toMatch(/^Rows 1–/);
    await page.getByTestId('chip-remove-GENDER').click();
    await page.getByTestId('state-select').selectOption('CA');
    await expect.poll(countText).toBe(count(total));
  });

  it('gives the row number room for eight digits at 1024x700 and 1440x900, in both schemes', async () => {
    const { page } = desk;
    for (const scheme of SCHEMES)
      for (const [width, height] of SIZES) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height });
        const cell = page.locator('.ag-row[row-index="0"] [col-id="row"]').first();
        await cell.waitFor();
        // The widest row number of a 99-million-person audience, written into a real row-number cell.
        const fits = await cell.evaluate((el) => {
          el.textContent = '99,999,999';
          return { scroll: el.scrollWidth, client: el.clientWidth };
        });
        expect(fits.scroll, `${width}x${height} (${scheme})`).toBeLessThanOrEqual(fits.client);
      }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('shows any field as a column, headed by its label, coded values as their meanings', async () => {
    const { page } = desk;
    await page.getByTestId('columns-open').click();
    await page.getByTestId('column-search').fill('household income');
    await page.getByTestId('field-option-EHI').click();
    const label = dictionaryEntry('EHI')!.label;
    const header = page.locator('.ag-header-cell[col-id="EHI"]');
    await expect.poll(() => header.innerText()).toBe(label);
    // The first person's income, as the loopback API reads it, shown as its meaning.
    const first = (await api(desk, 'search', { state: 'CA', limit: 1 })).json.results[0] as Record<string, string>;
    // Both cells polled together: adding the column reloads the rows, and an empty income is also
    // what a row still loading shows.
    const cell = page.locator('.ag-row[row-index="0"] [col-id="EHI"]').first();
    const pidCell = page.locator('.ag-row[row-index="0"] [col-id="pid"]').first();
    await expect
      .poll(async () => [await pidCell.innerText(), await cell.innerText()])
      .toEqual([first.PID, first.EHI ? codeLabel('EHI', first.EHI) : '']);
    // Headers are whole (wrapped, not cut) at both sizes, in both schemes (each has its own grid theme).
    for (const scheme of SCHEMES)
      for (const [width, height] of SIZES) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height });
        expect(await cutLabels(page, '.ag-header-cell-text'), `${width}x${height} (${scheme})`).toEqual([]);
        await shot(page, `canvas-income-column-${width}x${height}-${scheme}`);
      }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('column-EHI').click();
    await expect.poll(() => header.count()).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('columns-menu').count()).toBe(0);
  });

  it('ranks the field named first, and shows several results at 1024x700 and 1440x900, in both schemes', async () => {
    const { page } = desk;
    for (const scheme of SCHEMES)
      for (const [width, height] of SIZES) {
        const where = `${width}x${height} (${scheme})`;
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height });
        await page.getByTestId('field-search').fill('education');
        const options = page.locator('[data-testid="field-results"] [data-testid^="field-option-"]');
        await expect.poll(() => options.first().getAttribute('data-testid')).toBe('field-option-EDUCATIONCD');
        const whole = await options.evaluateAll((els) => {
          // Whole inside the list, the builder's visible box and the window.
          const list = els[0].closest('[data-testid="field-results"]').getBoundingClientRect();
          const builder = els[0].closest('[data-testid="builder"]').getBoundingClientRect();
          const vh = els[0].ownerDocument.documentElement.clientHeight;
          const top = Math.max(list.top, builder.top);
          const bottom = Math.min(list.bottom, builder.bottom, vh);
          return els.filter((el) => {
            const r = el.getBoundingClientRect();
            return r.top >= top - 0.5 && r.bottom <= bottom + 0.5;
          }).length;
        });
        expect(whole, where).toBeGreaterThanOrEqual(3);
        expect(await overflows(page, ['#builder-region', '[data-testid="builder"]', '[data-testid="field-results"]']), where).toEqual([]);
        expect(await cutLabels(page, '[data-testid="field-results"] .label'), where).toEqual([]);
        await page.getByTestId('field-search').fill('');
      }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('keeps value labels and the state menu whole at 1024x700 and 1440x900 in both schemes, and the empty-filter line', async () => {
    const { page } = desk;
    for (const scheme of SCHEMES)
      for (const [width, height] of SIZES) {
        const where = `${width}x${height} (${scheme})`;
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height });
        for (const [query, field, expected] of [
          ['household income', 'EHI', '$100,000'],
          ['county', 'CNTYCD', 'Los Angeles'],
        ] as const) {
          await page.getByTestId('field-search').fill(query);
          await page.getByTestId(`field-option-${field}`).click();
          const labels = page.locator(`[data-testid="values-${field}"] .label`);
          await labels.first().waitFor();
          expect(
            (await labels.allInnerTexts()).some((t) => t.includes(expected)),
            expected,
          ).toBe(true);
          expect(await cutLabels(page, `[data-testid="values-${field}"] .label`), where).toEqual([]);
          expect(await overflows(page, ['[data-testid="builder"]', `[data-testid="values-${field}"]`], true), where).toEqual([]);
          await page.getByTestId('filter-remove').click();
        }
        // The state menu's chosen option is whole: Chromium sizes a copy holding only it no wider than the menu.
        expect(await page.getByTestId('state-select').evaluate((select) => select.options[select.selectedIndex].text)).toMatch(
          /^CA · California \(\d[\d,]*\)$/,
        );
        expect(await cutSelects(page, '[data-testid="state-select"]'), where).toEqual([]);
      }
    await page.emulateMedia({ colorScheme: 'light' });
    // With several states the empty-filter line says how many.
    await page.getByTestId('states-open').click();
    await page.getByTestId('state-check-TX').check();
    await expect.poll(() => page.getByTestId('builder').innerText()).toContain('No filters: everyone in the 2 states.');
    await page.getByTestId('states-one').click();
    await expect.poll(() => page.getByTestId('builder').innerText()).toContain('No filters: everyone in the state.');
    await page.getByTestId('states-open').click();
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
