// End to end, in real Chromium against the real browser mode of `serve`: the left column shared by
// the filters and the list controls. With the list controls open and filters added, at 1024x700 and
// 1440x900 in both colour schemes, the filters keep most of the column (the field search shows
// several whole results, a filter editor its head and values), the list controls keep their step
// counts in view, each scrolls inside its own box, labels are whole, and the page never scrolls; at
// the column's narrowest too.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './support/desk';
import { useDeskInState } from './support/deskInState';
import { atEverySize, cutLabels, cutSelects, overflows, pageOverflow } from './support/layout';

const desk = useDeskInState('CA');

const COLUMN = ['#builder-region', '[data-testid="builder"]', '[data-testid="list-controls"]', '[data-testid="control-steps"]'];
const LABELS = [
  '[data-testid="builder"] h2',
  '[data-testid="builder"] .field-label',
  '[data-testid="list-controls"] h2',
  '[data-testid="list-controls"] legend',
  '[data-testid="list-controls"] label:not(.sr-only)',
  '[data-testid="control-steps"] .step',
].join(', ');

/** Heights of the column and of the two boxes sharing it. */
const heights = (page: Page) =>
  page.locator('#builder-region').evaluate((region) => {
    const h = (sel: string) => region.querySelector(sel).getBoundingClientRect().height;
    return {
      column: region.getBoundingClientRect().height,
      builder: h('[data-testid="builder"]'),
      controls: h('[data-testid="list-controls"]'),
    };
  });

/**
 * How many elements matching `selector` are wholly in view: inside every box that clips them on the
 * way up (the lists and panels that scroll) and inside the window.
 */
const wholeInView = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll(
    (els) =>
      els.filter((el) => {
        const r = el.getBoundingClientRect();
        const doc = el.ownerDocument;
        if (r.height === 0 || r.top < -0.5 || r.bottom > doc.documentElement.clientHeight + 0.5) return false;
        for (let box = el.parentElement; box && box !== doc.body; box = box.parentElement) {
          if (doc.defaultView.getComputedStyle(box).overflowY === 'visible') continue;
          const b = box.getBoundingClientRect();
          if (r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) return false;
        }
        return true;
      }).length,
  );

async function addFilter(page: Page, query: string, field: string): Promise<void> {
  await page.getByTestId('field-search').fill(query);
  await page.getByTestId(`field-option-${field}`).click();
  await page.getByTestId(`filter-editor-${field}`).waitFor();
}

describe('the builder column with the list controls open', () => {
  for (const scheme of ['light', 'dark'] as const)
    for (const [width, height] of [
      [1024, 700],
      [1440, 900],
    ] as const)
      it(`gives the filters room and keeps the column inside a ${width}x${height} window (${scheme})`, async () => {
        const { page } = desk;
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height });
        await page.getByTestId('list-controls').waitFor();
        await page.getByTestId('control-steps').getByTestId('step-total').waitFor();

        // No filter yet: the field search shows several whole results, the filters most of the column.
        await page.getByTestId('field-search').fill('income');
        await page.getByTestId('field-option-EHI').waitFor();
        expect(await wholeInView(page, '[data-testid="field-results"] [data-testid^="field-option-"]')).toBeGreaterThanOrEqual(3);
        const searching = await heights(page);
        expect(searching.builder, JSON.stringify(searching)).toBeGreaterThanOrEqual(searching.column * 0.55);
        expect(await pageOverflow(page)).toEqual({ x: 0, y: 0 });
        await page.getByTestId('field-search').fill('');

        // Two filters: one done, one open in its editor.
        await addFilter(page, 'gender', 'GENDER');
        await page.getByTestId('value-GENDER-F').locator('input').check();
        await page.getByTestId('filter-done').click();
        await addFilter(page, 'household income', 'EHI');
        await page.getByTestId('value-EHI-A').waitFor();
        const editing = await heights(page);
        expect(editing.builder, JSON.stringify(editing)).toBeGreaterThanOrEqual(editing.column * 0.55);
        // Scrolled to, the editor shows its field's name and at least five of its values, whole.
        await page.getByTestId('filter-editor-EHI').evaluate((el) => el.scrollIntoView({ block: 'start' }));
        expect(await wholeInView(page, '[data-testid="filter-editor-EHI"] .field-label')).toBe(1);
        expect(await wholeInView(page, '[data-testid="values-EHI"] [data-testid^="value-EHI-"]')).toBeGreaterThanOrEqual(5);

        // The list controls: their heading, first control and every step count in view.
        expect(await wholeInView(page, '#controls-title')).toBe(1);
        expect(await wholeInView(page, '[data-testid="control-near-mode"]')).toBe(1);
        expect(await wholeInView(page, '[data-testid="control-steps"] .step')).toBe(6);

        expect(await overflows(page, COLUMN)).toEqual([]);
        expect(await cutLabels(page, LABELS)).toEqual([]);
        expect(await cutLabels(page, '[data-testid="values-EHI"] .label')).toEqual([]);
        expect(await pageOverflow(page)).toEqual({ x: 0, y: 0 });
        await shot(page, `builder-column-${width}x${height}-${scheme}`);

        await page.getByTestId('filter-done').click();
        await page.getByTestId('clear-filters').click();
      });

  it('keeps every label and chosen menu option of the column whole at its narrowest, at both sizes in both schemes', async () => {
    const { page } = desk;
    const width = async () => (await page.locator('#builder-region').boundingBox())!.width;
    const before = await width();
    await page.getByTestId('builder-resizer').focus();
    // 20 px a press, down to the narrowest the handle allows.
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
    await expect.poll(width).toBeLessThan(241);
    await atEverySize(page, async (where) => {
      expect(await overflows(page, COLUMN), where).toEqual([]);
      expect(await cutLabels(page, `${LABELS}, #builder-region button`), where).toEqual([]);
      expect(await cutSelects(page, '#builder-region select'), where).toEqual([]);
      expect(await pageOverflow(page), where).toEqual({ x: 0, y: 0 });
    });
    const back = Math.round((before - (await width())) / 20);
    for (let i = 0; i < back; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(width).toBeCloseTo(before, 0);
  });
});
