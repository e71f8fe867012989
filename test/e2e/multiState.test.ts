// End to end, in real Chromium against the real browser mode of `serve`: an audience over several
// states and over every state. The count is the sum of the API's one-state totals (the API stays one
// state a request), each state's count is listed, the grid runs through the states in code order,
// the breakdown adds up, and one export file holds every state's records.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STATE_CODES } from '../../src/shared/states';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';

let desk: Desk;
beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
});
afterAll(() => stopDesk(desk));

const countText = () => desk.page.getByTestId('audience-count').innerText();
const FILTERS = [['GENDER', ['F']]];
const total = async (state: string, filters = FILTERS) => (await api(desk, 'preview', { state, limit: 0, filters })).json.total as number;

describe('audiences across states', () => {
  it('counts several states as the sum of each state’s API total, and lists each state’s count', async () => {
    const { page } = desk;
    await page.getByTestId('dataset-info').waitFor();
    await page.getByTestId('state-select').selectOption('NY');
    await page.getByTestId('field-search').fill('gender');
    await page.getByTestId('field-option-GENDER').click();
    await page.getByTestId('value-GENDER-F').locator('input').check();
    await page.getByTestId('filter-done').click();
    await expect.poll(countText).toBe(count(await total('NY')));

    await page.getByTestId('states-open').click();
    await page.getByTestId('state-check-CA').check();
    await page.getByTestId('state-check-DE').check();
    const each = { CA: await total('CA'), DE: await total('DE'), NY: await total('NY') };
    await expect.poll(countText).toBe(count(each.CA + each.DE + each.NY));
    await expect.poll(() => page.getByTestId('count-bar').innerText()).toContain('in CA, DE and NY');
    await page.getByTestId('state-counts').locator('summary').click();
    for (const [s, n] of Object.entries(each)) expect(await page.getByTestId(`state-count-${s}`).innerText()).toContain(count(n));
    // The API was never asked about several states: every request it logged named one.
    const asked = desk.rpcCalls.filter((c) => c.op === 'audience/count').at(-1)!;
    expect(asked.input).toMatchObject({ state: 'CA', states: ['CA', 'DE', 'NY'] });
    await shot(page, 'multi-state-count');
  });

  it('runs the grid through the states in code order, across the boundary between two', async () => {
    const { page } = desk;
    const ca = await total('CA');
    const lastCa = (await api(desk, 'preview', { state: 'CA', limit: 1, skip: ca - 1, filters: FILTERS })).json.results[0].pid;
    const firstDe = (await api(desk, 'preview', { state: 'DE', limit: 1, skip: 0, filters: FILTERS })).json.results[0].pid;
    const pidAt = (i: number) => page.locator(`.ag-row[row-index="${i}"] [col-id="pid"]`).first().innerText();
    const box = (await page.getByTestId('preview-grid').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, (ca - 3) * 34);
    // Polled together: the two rows can lie in two blocks of the grid, each loaded by its own request.
    const stateAt = (i: number) => page.locator(`.ag-row[row-index="${i}"] [col-id="state"]`).first().innerText();
    await expect
      .poll(async () => [await pidAt(ca - 1), await pidAt(ca), await stateAt(ca)], { timeout: 15_000 })
      .toEqual([lastCa, firstDe, 'DE']);
  });

  it('adds the breakdown up across the states', async () => {
    const { page } = desk;
    await page.getByTestId('tab-breakdown').click();
    await page.getByTestId('breakdown-preset-MARRIEDCD').click();
    const married = [
      ['GENDER', ['F']],
      ['MARRIEDCD', ['M']],
    ];
    const sum = (await total('CA', married)) + (await total('DE', married)) + (await total('NY', married));
    await expect.poll(() => page.getByTestId('breakdown-bar-M').locator('.bar-count').innerText()).toBe(count(sum));
  });

  it('exports every state’s records into one file', async () => {
    const { page } = desk;
    await page.getByTestId('tab-export').click();
    await page.getByTestId('export-start').click();
    await page.getByTestId('export-job-done').waitFor({ timeout: 30_000 });
    const path = await page.getByTestId('export-path').innerText();
    expect(path).toMatch(/audience-CA-DE-NY-/);
    const lines = readFileSync(path, 'utf8').trim().split(/\r?\n/);
    // The header, then every state's records, state after state (STATE is a column of each record).
    const stateColumn = lines[0]!.split(',').indexOf('STATE');
    const states = lines.slice(1).map((l) => l.split(',')[stateColumn]);
    const each = [await total('CA'), await total('DE'), await total('NY')];
    expect(states).toEqual([...Array(each[0]).fill('CA'), ...Array(each[1]).fill('DE'), ...Array(each[2]).fill('NY')]);
    await expect.poll(() => page.getByTestId('export-history').innerText()).toContain('CA, DE and NY');
  });

  it('takes every state at once: the count is the dataset’s women', async () => {
    const { page } = desk;
    await page.getByTestId('state-select').focus();
    await page.getByTestId('states-all').click();
    let sum = 0;
    for (const s of STATE_CODES) sum += await total(s);
    await expect.poll(countText, { timeout: 20_000 }).toBe(count(sum));
    await expect.poll(() => page.getByTestId('count-bar').innerText()).toContain('in all states');
    await page.getByTestId('states-one').click();
    await expect.poll(countText).toBe(count(await total('AK')));
    expect(desk.consoleErrors).toEqual([]);
  });
});
