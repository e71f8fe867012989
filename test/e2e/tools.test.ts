// End to end, in real Chromium against the real browser mode of `serve`: export the whole audience
// and count the file's rows; create a key in the UI, use it on the API, revoke it and see 401; save
// an audience, change it, reload it; and a back end that goes away is explained in place.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { fieldLabel } from '../../src/renderer/src/lib/fieldInfo';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FIELDS } from '../../src/shared/fields';
import { api, count, serveGone, shot, startDesk, stopDesk, stopServe, type Desk } from './support/desk';

let desk: Desk;
const STATE = 'TX';

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  const { page } = desk;
  await page.getByTestId('dataset-info').waitFor();
  await page.getByTestId('state-select').selectOption(STATE);
  await page.getByTestId('field-search').fill('marriedcd');
  await page.getByTestId('field-option-MARRIEDCD').click();
  await page.getByTestId('value-MARRIEDCD-M').locator('input').check();
  await page.getByTestId('filter-done').click();
});
afterAll(() => stopDesk(desk));

const FILTERS = [['MARRIEDCD', ['M']]];
const countText = () => desk.page.getByTestId('audience-count').innerText();

async function exportAs(format: 'csv' | 'jsonl'): Promise<string> {
  const { page } = desk;
  await page.getByTestId('tab-export').click();
  await page.getByTestId(`export-format-${format}`).check();
  await page.getByTestId('export-name').fill(`e2e-${format}`);
  await page.getByTestId('export-start').click();
  await page.getByTestId('export-job-done').waitFor({ timeout: 60_000 });
  return (await page.getByTestId('export-path').innerText()).trim();
}

describe('tools in the browser', () => {
  it('exports the whole audience as CSV and as JSON Lines, with every record', async () => {
    const { json } = await api(desk, 'preview', { state: STATE, limit: 0, filters: FILTERS });
    await expect.poll(countText).toBe(count(json.total));
    const csvPath = await exportAs('csv');
    await shot(desk.page, '05-export');
    const rows = parse(readFileSync(csvPath, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(json.total);
    expect(Object.keys(rows[0]!)).toEqual(FIELDS.map((f) => f.name));
    expect(rows.every((r) => r.STATE === STATE && r.MARRIEDCD === 'M')).toBe(true);
    expect(await desk.page.getByTestId('export-written').innerText()).toBe(`${count(json.total)} / ${count(json.total)} records`);
    expect(await desk.page.getByTestId('export-show').count()).toBe(0);

    const jsonlPath = await exportAs('jsonl');
    const lines = readFileSync(jsonlPath, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(json.total);
    expect(JSON.parse(lines[0]!).PID).toBe(rows[0]!.PID);
    const history = desk.page.getByTestId('export-history');
    await expect.poll(() => history.innerText()).toContain('e2e-jsonl');
    // The history names the filter by its label (the export history's words).
    expect(await history.innerText()).toContain(`${count(json.total)} records · ${STATE} · ${fieldLabel('MARRIEDCD')}`);
  });

  it('creates a key shown once, which works on the API until it is revoked', async () => {
    const { page } = desk;
    await page.getByTestId('tab-api').click();
    await expect.poll(() => page.getByTestId('api-url').innerText()).toBe(desk.apiUrl);
    await page.getByTestId('key-name').fill('ui-made');
    await page.getByTestId('key-create').click();
    const key = (await page.getByTestId('new-key-value').innerText()).trim();
    await shot(page, '06-api-key-created');

    const ok = await api(desk, 'preview', { state: STATE, limit: 2, filters: FILTERS }, key);
    expect(ok.status).toBe(200);
    expect(ok.json.results).toHaveLength(2);
    await page.getByTestId('new-key-dismiss').click();
    expect(await page.getByText(key).count()).toBe(0);

    const row = page.getByTestId('key-row-ui-made');
    await expect.poll(() => row.innerText(), { timeout: 10_000 }).not.toContain('never');
    await expect.poll(() => page.getByTestId('request-log').innerText(), { timeout: 10_000 }).toContain('ui-made');
    await shot(page, '07-api-panel');

    await row.getByTestId('key-revoke').click();
    await row.getByTestId('key-revoke-confirm').click();
    await expect.poll(() => row.innerText()).toContain('revoked');
    const refused = await api(desk, 'preview', { state: STATE, limit: 2 }, key);
    expect(refused.status).toBe(401);
    expect(refused.json.error.code).toBe('unauthorized');
  });

  it('saves an audience, copies it as an API request, and reloads it after a change', async () => {
    const { page } = desk;
    const married = await countText();
    await page.getByTestId('tab-saved').click();
    await page.getByTestId('save-name').fill('Married in Texas');
    await page.getByTestId('save-button').click();
    const item = page.getByTestId('saved-Married in Texas');
    await item.waitFor();

    await page.getByTestId('current-snippet').getByTestId('copy-curl').click();
    const curl = await page.getByTestId('snippet-curl').innerText();
    expect(curl).toContain(`${desk.apiUrl}/api/audiences/preview`);
    expect(curl).toContain('X-API-KEY: <your key>');
    expect(curl).not.toContain(desk.key);
    await page.getByTestId('current-snippet').getByTestId('copy-json').click();
    const body = JSON.parse(await page.getByTestId('snippet-json').innerText());
    expect(body).toEqual({ state: STATE, limit: 25, skip: 0, filters: FILTERS });
    expect((await api(desk, 'preview', body)).json.total).toBe(Number(married.replace(/,/g, '')));
    await shot(page, '08-saved');

    await page.getByTestId('clear-filters').click();
    await page.getByTestId('state-select').selectOption('NY');
    await expect.poll(countText).not.toBe(married);
    await item.getByTestId('saved-load').click();
    await expect.poll(() => page.getByTestId('state-select').inputValue()).toBe(STATE);
    await expect.poll(countText).toBe(married);
    expect(await page.getByTestId('chip-MARRIEDCD').innerText()).toContain('M');

    await item.getByTestId('saved-rename').click();
    await page.getByTestId('rename-input').fill('Texas, married');
    await page.getByTestId('rename-save').click();
    const renamed = page.getByTestId('saved-Texas, married');
    await renamed.waitFor();
    await page.reload();
    await page.getByTestId('tab-saved').click();
    await renamed.waitFor();
    await renamed.getByTestId('saved-delete').click();
    await renamed.getByTestId('saved-delete-confirm').click();
    await renamed.waitFor({ state: 'detached' });
  });

  it('explains a bad range and a back end that has gone away, in place', async () => {
    const { page } = desk;
    await page.getByTestId('field-search').fill('age');
    await page.getByTestId('field-option-AGE').click();
    await page.getByTestId('range-input').fill('50-40');
    await page.getByTestId('range-add').click();
    await expect.poll(() => page.getByTestId('range-problem').innerText()).toMatch(/low end is above its high end/);
    stopServe(desk);
    // Wait for the whole process group (npx exits before the server it started); while it is still
    // closing, the page may be told 503 instead, which reads "Not available yet".
    await serveGone(desk);
    await page.getByTestId('range-input').fill('40-50');
    await page.getByTestId('range-add').click();
    await expect.poll(() => page.getByTestId('count-error').innerText(), { timeout: 10_000 }).toMatch(/No connection to the back end/);
    await shot(page, '09-error');
  });
});
