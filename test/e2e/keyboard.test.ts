// End to end, in real Chromium against the real browser mode of `serve`: the keyboard paths. Esc on
// a filter editor gives focus back to what opened it; Enter on a person opens the drawer with focus
// in it, and Esc brings focus back to the row; every Tab stop of the desk and of its canvas tabs is
// something visible with a name (none lands on nothing); the canvas tabs move with the arrow keys.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { countyName } from '../../src/shared/geography';
import { rpcSettled } from './support/desk';
import { useDeskInState } from './support/deskInState';

const desk = useDeskInState('CA');
// Its first page of people shown before any test looks.
beforeAll(() => desk.page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().waitFor());

/** The focused element's test id, or its tag and text when it has none; 'BODY' when focus is on nothing. */
const focused = (page: Page) =>
  page.locator('html').evaluate((html) => {
    const el = html.ownerDocument.activeElement;
    if (!el || el === html.ownerDocument.body) return 'BODY';
    return el.dataset?.testid ?? `${el.tagName}:${(el.textContent ?? '').trim().slice(0, 30)}`;
  });

describe('keyboard paths', () => {
  it('gives focus back to the field search, or the chip, when Esc closes a filter editor', async () => {
    const { page } = desk;
    await page.getByTestId('field-search').fill('gender');
    await page.getByTestId('field-search').press('Enter');
    await page.getByTestId('filter-editor-GENDER').waitFor();
    await page.getByTestId('value-GENDER-F').locator('input').focus();
    await page.keyboard.press('Escape');
    await page.getByTestId('filter-editor-GENDER').waitFor({ state: 'detached' });
    expect(await focused(page)).toBe('field-search');
    // Opened from its chip: Esc returns to the chip.
    await page.getByTestId('chip-GENDER').locator('.chip-body').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('filter-editor-GENDER').waitFor();
    await page.getByTestId('value-GENDER-M').locator('input').focus();
    await page.keyboard.press('Escape');
    await page.getByTestId('filter-editor-GENDER').waitFor({ state: 'detached' });
    expect(await page.locator('html').evaluate((html) => html.ownerDocument.activeElement?.classList.contains('chip-body'))).toBe(true);
    await page.getByTestId('chip-remove-GENDER').click();
  });

  it('opens a person with Enter, focus in the drawer, and Esc brings focus back to the row', async () => {
    const { page } = desk;
    const cell = page.locator('.ag-row[row-index="2"] [col-id="fname"]').first();
    // The row's data is in (not a placeholder): Enter opens a person only once there is one.
    await expect.poll(() => cell.innerText()).not.toBe('');
    await cell.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('record-drawer').waitFor();
    await expect
      .poll(() => page.locator('html').evaluate((html) => !!html.ownerDocument.activeElement?.closest('[data-testid="record-drawer"]')))
      .toBe(true);
    // The county reads as its name beside its code, as in the breakdowns.
    const county = page.getByTestId('record-field-CNTYCD');
    await county.waitFor();
    expect(await county.getByTestId('code-meaning').innerText()).toBe(countyName('CA', (await county.getAttribute('data-value'))!));
    // Tab stays useful inside it: the next stop is the drawer's close button.
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('record-close');
    await page.keyboard.press('Escape');
    await page.getByTestId('record-drawer').waitFor({ state: 'detached' });
    await expect
      .poll(() =>
        page.locator('html').evaluate((html) => {
          const el = html.ownerDocument.activeElement;
          return `${el?.closest('.ag-row')?.getAttribute('row-index')}:${el?.getAttribute('col-id')}`;
        }),
      )
      .toBe('2:fname');
  });

  it('moves between the canvas tabs with the arrow keys, the tab list one Tab stop', async () => {
    const { page } = desk;
    await page.getByTestId('tab-people').focus();
    await page.keyboard.press('ArrowRight');
    expect(await focused(page)).toBe('tab-map');
    await page.getByTestId('map-panel').waitFor();
    await page.keyboard.press('End');
    expect(await focused(page)).toBe('tab-api');
    await page.keyboard.press('Home');
    expect(await focused(page)).toBe('tab-people');
    expect(await page.locator('[role="tab"][tabindex="0"]').count()).toBe(1);
  });

  it('lands every Tab stop of every canvas tab on something visible with a name', async () => {
    const { page } = desk;
    const tabs = await page.locator('[data-testid="canvas"] [role="tab"]').evaluateAll((els) => els.map((el) => el.dataset.testid));
    expect(tabs.length).toBeGreaterThanOrEqual(7);
    for (const tab of tabs) {
      await page.getByTestId(tab).click();
      await page.getByTestId('canvas-view').locator('> *').first().waitFor();
      // What the tab loads on opening is in before the Tab walk.
      await rpcSettled(desk);
      await page.locator('body').click({ position: { x: 1, y: 1 } });
      const stops: string[] = [];
      const bad: string[] = [];
      for (let i = 0; i < 150; i++) {
        await page.keyboard.press('Tab');
        const stop = await page.locator('html').evaluate((html) => {
          const el = html.ownerDocument.activeElement;
          if (!el || el === html.ownerDocument.body) return { id: 'BODY', problem: '' };
          const r = el.getBoundingClientRect();
          const name =
            el.getAttribute('aria-label') ??
            el.getAttribute('aria-labelledby') ??
            el.getAttribute('title') ??
            (el.labels?.length ? 'label' : '');
          const text = `${name}${(el.textContent ?? '').trim()}${el.getAttribute('placeholder') ?? ''}${el.value ?? ''}`;
          const id = el.dataset?.testid ?? `${el.tagName}.${el.className}:${text.slice(0, 30)}`;
          const hidden = r.width < 2 || r.height < 2;
          return { id, problem: hidden ? `${id}: no box (${r.width}x${r.height})` : text ? '' : `${id}: no name` };
        });
        if (stop.id === 'BODY' || stops.includes(stop.id)) {
          stops.push(`END ${stop.id}`);
          break;
        }
        stops.push(stop.id);
        if (stop.problem) bad.push(stop.problem);
      }
      expect(stops.length, `${tab}: ${stops.join(' | ')}`).toBeGreaterThan(10);
      expect(bad, tab).toEqual([]);
    }
  });
});
