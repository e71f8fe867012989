// End to end, in real Chromium against the real browser mode of `serve` over the shared test
// dataset: build an audience and see the API's own total; scroll deep and see the API's rows at
// that offset; open a person's full record; break the audience down.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FIELDS } from '../../src/shared/fields';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';

let desk: Desk;
const STATE = 'CA';
const FILTERS = [
  ['GENDER', ['F']],
  ['AGE', ['25-34', '35-44', '45-54']],
];

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
});
afterAll(() => stopDesk(desk));

const countText = () => desk.page.getByTestId('audience-count').innerText();

async function addFilter(query: string, field: string): Promise<void> {
  const { page } = desk;
  await page.getByTestId('field-search').fill(query);
  await page.getByTestId(`field-option-${field}`).click();
  await page.getByTestId(`filter-editor-${field}`).waitFor();
}

describe('audience in the browser', () => {
  it('counts a built audience live, and the count is the API total', async () => {
    const { page } = desk;
    await page.getByTestId('dataset-info').waitFor();
    await page.getByTestId('state-select').selectOption(STATE);
    const everyone = await api(desk, 'preview', { state: STATE, limit: 0 });
    await expect.poll(countText).toBe(count(everyone.json.total));

    await addFilter('gender', 'GENDER');
    await page.getByTestId('value-GENDER-F').locator('input').check();
    await page.getByTestId('filter-done').click();
    await addFilter('age', 'AGE');
    for (const band of ['25-34', '35-44', '45-54']) await page.getByTestId(`value-AGE-${band}`).locator('input').check();
    await shot(page, '01-builder');
    await page.getByTestId('filter-done').click();

    const expected = await api(desk, 'preview', { state: STATE, limit: 1, filters: FILTERS });
    expect(expected.status).toBe(200);
    expect(expected.json.total).toBeGreaterThan(200);
    await expect.poll(countText).toBe(count(expected.json.total));
    await expect.poll(() => page.getByTestId('chip-AGE').innerText()).toContain('25-34');
    await expect.poll(() => page.getByTestId('count-ms').innerText()).toMatch(/counted in [\d.]+ (ms|s)/);
  });

  it('pages through the people in blocks of 100 and shows the API’s rows deep in the list', async () => {
    const { page } = desk;
    const { json } = await api(desk, 'preview', { state: STATE, limit: 1, filters: FILTERS });
    const total: number = json.total;
    const firstPid = (await api(desk, 'preview', { state: STATE, limit: 1, skip: 0, filters: FILTERS })).json.results[0].pid;
    const cell = (i: number, col: string) => page.locator(`.ag-row[row-index="${i}"] [col-id="${col}"]`).first();
    const pidAt = (i: number) => cell(i, 'pid').innerText();
    await expect.poll(() => pidAt(0)).toBe(firstPid);

    const deep = Math.floor(total * 0.85);
    const expectedPage = await api(desk, 'preview', { state: STATE, limit: 5, skip: deep, filters: FILTERS });
    // Scroll as a person would, with the wheel over the grid (34 px a row).
    const box = (await page.getByTestId('preview-grid').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, deep * 34);
    // The five rows polled together: they can lie in two blocks of the grid, each its own request.
    const fiveAt = () => Promise.all([0, 1, 2, 3, 4].map((k) => pidAt(deep + k)));
    const expectedPids = expectedPage.json.results.map((r: { pid: string }) => r.pid);
    await expect.poll(fiveAt, { timeout: 15_000 }).toEqual(expectedPids);
    expect(await cell(deep, 'fname').innerText()).toBe(expectedPage.json.results[0].fname);
    expect(await cell(deep, 'row').innerText()).toBe(count(deep + 1));
    await expect.poll(() => page.getByTestId('grid-range').innerText()).toContain(`of ${count(total)}`);
    await shot(page, '02-grid-deep');

    const previews = desk.rpcCalls.filter(
      (c) => c.op === 'audience/preview' && JSON.stringify(c.input.filters) === JSON.stringify(FILTERS),
    );
    expect(previews.every((c) => c.input.limit === 100 && (c.input.skip as number) % 100 === 0)).toBe(true);
    expect(previews.length).toBeLessThan(Math.ceil(total / 100));
  });

  it('opens a person’s full record, grouped and searchable', async () => {
    const { page } = desk;
    const row = page.locator('.ag-row[row-index]').nth(3);
    const pid = await row.locator('[col-id="pid"]').innerText();
    await row.click();
    await page.getByTestId('record-drawer').waitFor();
    await expect.poll(() => page.getByTestId('record-pid').innerText()).toBe(pid);
    const full = await api(desk, 'search', { state: STATE, limit: 1, filters: [['PID', [pid]]] });
    const person = full.json.results[0];
    await expect.poll(() => page.locator('[data-testid="record-drawer"] dt').count()).toBe(FIELDS.length);
    for (const name of ['HHID', 'LNAME', 'AGE', 'ZIP', 'CPI_TRAVEL_INDEX', 'INTERNAL7']) {
      const shown = await page.getByTestId(`record-field-${name}`).innerText();
      expect(shown).toBe(person[name] === '' ? '—' : String(person[name]));
    }
    expect(await page.getByTestId('record-group-household').count()).toBe(1);
    await shot(page, '03-record');
    await page.getByTestId('record-search').fill('cpi_sports');
    const names = await page.locator('[data-testid="record-drawer"] dt').allInnerTexts();
    expect(names.length).toBeGreaterThan(5);
    expect(names.every((n) => n.startsWith('CPI_SPORTS'))).toBe(true);
    await page.getByTestId('record-close').click();
    await page.getByTestId('record-drawer').waitFor({ state: 'detached' });

    // By keyboard: the clicked cell keeps focus; the next row opens with Enter and closes with Escape.
    const rowIndex = Number(await row.getAttribute('row-index'));
    await row.locator('[col-id="fname"]').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const nextPid = await page
      .locator(`.ag-row[row-index="${rowIndex + 1}"] [col-id="pid"]`)
      .first()
      .innerText();
    await expect.poll(() => page.getByTestId('record-pid').innerText()).toBe(nextPid);
    await page.keyboard.press('Escape');
    await page.getByTestId('record-drawer').waitFor({ state: 'detached' });
  });

  it('breaks the audience down by a field as bars that add up to the count', async () => {
    const { page } = desk;
    const { json } = await api(desk, 'preview', { state: STATE, limit: 0, filters: FILTERS });
    await page.getByTestId('tab-breakdown').click();
    await page.getByTestId('breakdown-preset-AGE').click();
    await expect.poll(() => page.getByTestId('breakdown-bar-35-44').isVisible()).toBe(true);
    const bands = await page.locator('[data-testid^="breakdown-bar-"] .bar-count').allInnerTexts();
    const sum = bands.map((t) => Number(t.replace(/,/g, ''))).reduce((a, b) => a + b, 0);
    expect(sum).toBe(json.total);
    expect(await page.getByTestId('breakdown-bar-18-24').locator('.bar-count').innerText()).toBe('0');
    await shot(page, '04-breakdown');
    await page.getByTestId('breakdown-preset-MARRIEDCD').click();
    await expect.poll(() => page.getByTestId('breakdown-field').innerText()).toBe('MARRIEDCD');
    const married = await api(desk, 'preview', { state: STATE, limit: 0, filters: [...FILTERS, ['MARRIEDCD', ['M']]] });
    await expect.poll(() => page.getByTestId('breakdown-bar-M').locator('.bar-count').innerText()).toBe(count(married.json.total));
    // A bar is also a shortcut: clicking it narrows the audience to that value.
    await page.getByTestId('breakdown-bar-M').click();
    await expect.poll(countText).toBe(count(married.json.total));
    await page.getByTestId('chip-remove-MARRIEDCD').click();
    await expect.poll(countText).toBe(count(json.total));
  });

  it('ran all of that without a console error, CSP violation or uncaught exception', () => {
    expect(desk.consoleErrors).toEqual([]);
  });
});
