// End to end, in real Chromium against the real browser mode of `serve`: the workspace's keyboard
// paths (the grid is one tab stop, Esc closes a filter editor, Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y walk
// the audience's edit history), the working audience and the grid's columns restored on reload,
// no panel outside the window at 1024x700 and 1440x900, the rows-in-view line, placeholders while a
// block loads, and the system's dark mode followed.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';
import { cutLabels, overflows, pageOverflow } from './support/layout';

let desk: Desk;
beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
});
afterAll(() => stopDesk(desk));

const countText = () => desk.page.getByTestId('audience-count').innerText();
const chips = (page: Page) => page.locator('[data-testid^="chip-"]:not([data-testid^="chip-remove-"])');

async function addValue(page: Page, query: string, field: string, value: string): Promise<void> {
  await page.getByTestId('field-search').fill(query);
  await page.getByTestId(`field-option-${field}`).click();
  await page.getByTestId(`value-${field}-${value}`).locator('input').check();
}

/** Parts of each element (text, tags) cut off by it or drawn past its right edge. */
async function clipped(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((els) => {
    const bad: string[] = [];
    for (const el of els) {
      const right = el.getBoundingClientRect().right;
      for (const part of [el, ...el.querySelectorAll('*')]) {
        if (part.getBoundingClientRect().right > right + 0.5) bad.push(`${el.dataset.testid}: "${part.textContent}" past the edge`);
        if (part.scrollWidth > part.clientWidth + 1 && part.clientWidth > 0) bad.push(`${el.dataset.testid}: "${part.textContent}" cut`);
      }
    }
    return bad;
  });
}

const PANELS = [
  '#builder-region',
  '[data-testid="count-bar"]',
  '[data-testid="preview"]',
  '[data-testid="canvas"]',
  '[data-testid="canvas-view"]',
  '[data-testid="top-bar"], header',
];

describe('workspace', () => {
  it('is one tab stop for the grid: Tab enters it once and leaves it; arrows move inside', async () => {
    const { page } = desk;
    await page.getByTestId('dataset-info').waitFor();
    await page.getByTestId('state-select').selectOption('CA');
    await page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().waitFor();
    const inGrid = () =>
      page.locator('html').evaluate((html) => !!html.ownerDocument.activeElement?.closest('[data-testid="preview-grid"]'));
    await page.getByTestId('columns-open').focus();
    await page.keyboard.press('Tab');
    expect(await inGrid()).toBe(true);
    // Arrow keys walk the cells; Tab then leaves the grid in one press, wherever focus is inside it.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    expect(await inGrid()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await inGrid()).toBe(false);
    await page.keyboard.press('Shift+Tab');
    expect(await inGrid()).toBe(true);
    await page.keyboard.press('Shift+Tab');
    expect(await inGrid()).toBe(false);
  });

  it('closes a filter editor with Esc', async () => {
    const { page } = desk;
    await page.getByTestId('field-search').fill('gender');
    await page.getByTestId('field-option-GENDER').click();
    await page.getByTestId('filter-editor-GENDER').waitFor();
    await page.getByTestId('value-GENDER-F').locator('input').focus();
    await page.keyboard.press('Escape');
    await page.getByTestId('filter-editor-GENDER').waitFor({ state: 'detached' });
    await page.getByTestId('chip-remove-GENDER').click();
  });

  it('undoes and redoes audience edits with Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y and the buttons', async () => {
    const { page } = desk;
    const everyone = (await api(desk, 'preview', { state: 'CA', limit: 0 })).json.total;
    const women = (await api(desk, 'preview', { state: 'CA', limit: 0, filters: [['GENDER', ['F']]] })).json.total;
    const womenTx = (await api(desk, 'preview', { state: 'TX', limit: 0, filters: [['GENDER', ['F']]] })).json.total;
    await expect.poll(countText).toBe(count(everyone));
    await addValue(page, 'gender', 'GENDER', 'F');
    await page.getByTestId('filter-done').click();
    await expect.poll(countText).toBe(count(women));
    await page.getByTestId('state-select').selectOption('TX');
    await expect.poll(countText).toBe(count(womenTx));

    // Focus on the page, not in a text box: the keys belong to the history.
    await page.locator('body').click({ position: { x: 2, y: 2 } });
    await page.keyboard.press('Control+z');
    await expect.poll(countText).toBe(count(women));
    expect(await page.getByTestId('state-select').inputValue()).toBe('CA');
    await page.keyboard.press('Control+z');
    await expect.poll(countText).toBe(count(everyone));
    expect(await page.getByTestId('chip-GENDER').count()).toBe(0);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(countText).toBe(count(women));
    await page.keyboard.press('Control+y');
    await expect.poll(countText).toBe(count(womenTx));
    expect(await page.getByTestId('redo').isDisabled()).toBe(true);
    await page.getByTestId('undo').click();
    await expect.poll(countText).toBe(count(women));
    await page.getByTestId('redo').click();
    await expect.poll(countText).toBe(count(womenTx));

    // In a text box, Ctrl+Z is the text's own undo, not the audience's. The key press is handled once
    // the text is back as it was; an audience undo would have changed the state and enabled redo at once.
    await page.getByTestId('field-search').fill('age');
    await page.getByTestId('field-search').press('Control+z');
    await expect.poll(() => page.getByTestId('field-search').inputValue()).toBe('');
    expect(await page.getByTestId('state-select').inputValue()).toBe('TX');
    expect(await page.getByTestId('chip-GENDER').count()).toBe(1);
    expect(await page.getByTestId('redo').isDisabled()).toBe(true);
    expect(await countText()).toBe(count(womenTx));
    await page.getByTestId('field-search').fill('');
  });

  it('restores the working audience and the grid’s columns on reload', async () => {
    const { page } = desk;
    const filters = [
      ['GENDER', ['F']],
      ['MARRIEDCD', ['M']],
    ];
    // The workspace is written a moment after the last change: this is the write of both changes below.
    const written = page.waitForResponse((response) => {
      if (!response.url().endsWith('/ui/rpc/workspace/set')) return false;
      const input = JSON.parse(response.request().postData() ?? '{}') as { audience?: { filters?: unknown }; columns?: string[] };
      return JSON.stringify(input.audience?.filters).includes('MARRIEDCD') && input.columns?.includes('CITY') === false;
    });
    await addValue(page, 'married', 'MARRIEDCD', 'M');
    await page.getByTestId('filter-done').click();
    const expected = (await api(desk, 'preview', { state: 'TX', limit: 0, filters })).json.total;
    await expect.poll(countText).toBe(count(expected));
    await page.getByTestId('columns-open').click();
    await page.getByTestId('column-city').click();
    await expect.poll(() => page.locator('.ag-header-cell[col-id="city"]').count()).toBe(0);
    expect((await written).ok()).toBe(true);

    await page.reload();
    await page.getByTestId('dataset-info').waitFor();
    await expect.poll(countText).toBe(count(expected));
    expect(await page.getByTestId('state-select').inputValue()).toBe('TX');
    expect(await chips(page).count()).toBe(2);
    await page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().waitFor();
    expect(await page.locator('.ag-header-cell[col-id="city"]').count()).toBe(0);
    expect(await page.locator('.ag-header-cell[col-id="fname"]').count()).toBe(1);
    await page.getByTestId('columns-open').click();
    await page.getByTestId('column-search').fill('city');
    await page.getByTestId('field-option-CITY').click();
    await page.getByTestId('columns-open').click();
    await expect.poll(() => page.locator('.ag-header-cell[col-id="city"]').count()).toBe(1);
  });

  it('counts the rows in view exactly, and shows placeholders while a block loads', async () => {
    const { page } = desk;
    await page.getByTestId('chip-remove-MARRIEDCD').click();
    await page.getByTestId('chip-remove-GENDER').click();
    const total = (await api(desk, 'preview', { state: 'TX', limit: 0 })).json.total;
    await expect.poll(() => page.getByTestId('grid-range').innerText(), { timeout: 10_000 }).toMatch(new RegExp(`of ${count(total)}$`));
    const inView = () =>
      page.getByTestId('preview-grid').evaluate((grid) => {
        const viewport = grid.querySelector('.ag-grid-viewport').getBoundingClientRect();
        const body = {
          top: Math.max(viewport.top, grid.querySelector('.ag-header').getBoundingClientRect().bottom),
          bottom: viewport.bottom,
        };
        const rows = [...grid.querySelectorAll('.ag-row[row-index]')];
        const visible = rows
          .filter((r) => {
            const b = r.getBoundingClientRect();
            return b.bottom > body.top + 1 && b.top < body.bottom - 1;
          })
          .map((r) => Number(r.getAttribute('row-index')));
        return { first: Math.min(...visible) + 1, last: Math.max(...visible) + 1 };
      });
    let seen = await inView();
    await expect.poll(() => page.getByTestId('grid-range').innerText()).toBe(`Rows ${seen.first}–${seen.last} of ${count(total)}`);

    // Slow the next blocks down, then scroll deep: the rows show placeholders until their block arrives.
    await page.route('**/ui/rpc/audience/preview', async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    const box = (await page.getByTestId('preview-grid').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, Math.floor(total * 0.7) * 34);
    await expect.poll(() => page.locator('[data-testid="preview-grid"] .placeholder-cell[col-id="pid"]').count()).toBeGreaterThan(3);
    await shot(page, 'workspace-placeholders');
    await expect.poll(() => page.locator('[data-testid="preview-grid"] .placeholder-cell').count(), { timeout: 15_000 }).toBe(0);
    await page.unroute('**/ui/rpc/audience/preview');
    seen = await inView();
    expect(seen.first).toBeGreaterThan(total * 0.5);
    await expect
      .poll(() => page.getByTestId('grid-range').innerText())
      .toBe(`Rows ${count(seen.first)}–${count(seen.last)} of ${count(total)}`);
  });

  for (const scheme of ['light', 'dark'] as const)
    for (const [width, height] of [
      [1024, 700],
      [1440, 900],
    ] as const) {
      it(`keeps every panel inside a ${width}x${height} window (${scheme}), the grid's columns and the API's request log included`, async () => {
        const { page } = desk;
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height });
        // Some API traffic, so the request log has rows (with a long key name).
        for (let i = 0; i < 3; i++) await api(desk, 'preview', { state: 'TX', limit: 1 });
        // And a refused one, whose reason the log spells out under it.
        expect((await api(desk, 'preview', { state: 'TX', limit: 1, filters: [['NO_SUCH_FIELD', ['1']]] })).status).toBe(400);
        // Every grid column is in view, not scrolled off to the side.
        await page.getByTestId('tab-people').click();
        await page.locator('.ag-row [col-id="pid"]').first().waitFor();
        expect(await overflows(page, PANELS)).toEqual([]);
        const grid = (await page.getByTestId('preview-grid').boundingBox())!;
        for (const col of ['row', 'pid', 'fname', 'lname', 'city', 'state']) {
          const head = (await page.locator(`.ag-header-cell[col-id="${col}"]`).boundingBox())!;
          expect(head.x + head.width, col).toBeLessThanOrEqual(grid.x + grid.width + 1);
        }
        await page.getByTestId('tab-api').click();
        // All three in the log before measuring, so no poll adds rows while the test reads them.
        await expect.poll(() => page.getByTestId('request-row').count()).toBeGreaterThanOrEqual(3);
        expect(
          await overflows(
            page,
            PANELS.filter((p) => p !== '[data-testid="preview"]'),
          ),
        ).toEqual([]);
        expect(await overflows(page, ['[data-testid="request-log"]', '[data-testid="request-log"] table'], true)).toEqual([]);
        await page.getByTestId('request-refusal').first().waitFor();
        expect(await cutLabels(page, '[data-testid="request-refusal"] td, [data-testid="request-log"] th')).toEqual([]);
        // The ms column is whole inside the panel.
        const ms = (await page.getByTestId('request-ms').first().boundingBox())!;
        const panel = (await page.getByTestId('canvas').boundingBox())!;
        expect(ms.x + ms.width).toBeLessThanOrEqual(panel.x + panel.width);
        // The field picker's options: long labels and type tags wrap inside the builder.
        await page.getByTestId('field-search').fill('mail order');
        await page.locator('[data-testid^="field-option-"]').first().waitFor();
        expect(await overflows(page, ['[data-testid="builder"]', '[data-testid="field-results"]'])).toEqual([]);
        expect(await clipped(page, '[data-testid^="field-option-"]')).toEqual([]);
        await shot(page, `workspace-${width}x${height}-${scheme}`);
        await page.getByTestId('field-search').fill('');
        await page.getByTestId('tab-people').click();
        expect(await overflows(page, PANELS)).toEqual([]);
        expect(await pageOverflow(page)).toEqual({ x: 0, y: 0 });
        await page.emulateMedia({ colorScheme: 'light' });
      });
    }

  it('follows the system’s dark mode, the grid included', async () => {
    const { page } = desk;
    const colours = () =>
      page.locator('html').evaluate((html) => {
        const style = (el: unknown) => html.ownerDocument.defaultView.getComputedStyle(el).backgroundColor as string;
        return {
          body: style(html),
          card: style(html.querySelector('[data-testid="count-bar"]')),
          grid: style(html.querySelector('[data-testid="preview-grid"] .ag-root-wrapper')),
        };
      });
    const lightness = (rgb: string) => {
      const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
      return (r! + g! + b!) / 3;
    };
    await page.emulateMedia({ colorScheme: 'light' });
    // The grid's theme follows the scheme a frame later, as in the dark case below: wait for it.
    await expect.poll(async () => lightness((await colours()).grid)).toBeGreaterThan(200);
    const light = await colours();
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(async () => lightness((await colours()).grid)).toBeLessThan(80);
    const dark = await colours();
    for (const k of ['body', 'card', 'grid'] as const) {
      expect(lightness(light[k]), k).toBeGreaterThan(200);
      expect(lightness(dark[k]), k).toBeLessThan(80);
    }
    await shot(page, 'workspace-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(desk.consoleErrors).toEqual([]);
  });
});
