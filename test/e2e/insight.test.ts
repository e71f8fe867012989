// End to end, in real Chromium against the real browser mode of `serve`: the Profile view against the
// API's profile of the same audience (and its CSV), `include` and `like` in the list controls against
// the API's totals, a lookalike model's lift chart and traits, and the Overlap view's matrix against the
// API's overlap, a region clicked into an audience whose count is that region's.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';

let desk: Desk;
const STATE = 'CA';
const ids: Record<string, string> = {};

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  await desk.page.getByTestId('dataset-info').waitFor();
  await desk.page.getByTestId('state-select').selectOption(STATE);
});
afterAll(() => stopDesk(desk));

async function post(path: string, body: unknown): Promise<any> {
  const r = await fetch(`${desk.apiUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-KEY': desk.key },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
  return r.json();
}
const total = async (keys: Record<string, unknown> = {}) =>
  (await api(desk, 'preview', { state: STATE, limit: 0, ...keys })).json.total as number;
const countText = () => desk.page.getByTestId('audience-count').innerText();

/** Builds `field = value` in the builder and saves it under `name`; its reference, from the saved list. */
async function saveFiltered(name: string, field: string, search: string, value: string): Promise<string> {
  const { page } = desk;
  await page.getByTestId('field-search').fill(search);
  await page.getByTestId(`field-option-${field}`).click();
  await page.getByTestId(`value-${field}-${value}`).locator('input').check();
  await page.getByTestId('filter-done').click();
  await expect.poll(countText).toBe(count(await total({ filters: [[field, [value]]] })));
  await page.getByTestId('tab-saved').click();
  await page.getByTestId('save-name').fill(name);
  await page.getByTestId('save-button').click();
  await page.getByTestId('saved-list').getByText(name, { exact: true }).waitFor();
  await page.getByTestId('clear-filters').click();
  await expect.poll(countText).toBe(count(await total()));
  const option = page.getByTestId('inclusion-add').locator('option', { hasText: `${name} (${STATE})` });
  await expect.poll(() => option.count()).toBe(1);
  return (await option.getAttribute('value'))!;
}

describe('insight in the browser', () => {
  it('saves two audiences to work with', async () => {
    ids.owners = await saveFiltered('Insight owners', 'HOMEOWNERC', 'homeowner', 'H');
    ids.married = await saveFiltered('Insight couples', 'MARRIEDCD', 'married', 'M');
    expect(ids.owners).toMatch(/^saved:\d+$/);
  });

  it('include keeps only the people of a saved audience; the Profile view shows the API’s profile of it, and its CSV', async () => {
    const { page } = desk;
    await page.getByTestId('inclusion-add').selectOption(ids.owners!);
    await expect.poll(countText).toBe(count(await total({ include: [ids.owners] })));
    await page.getByTestId('tab-profile').click();
    const expected = await post('/api/audiences/profile', { state: STATE, include: [ids.owners], fields: ['HOMEOWNERC', 'EHI'] });
    await expect.poll(() => page.getByTestId('profile-summary').innerText()).toContain(count(expected.total));
    // Everyone kept is a homeowner: the strongest difference, listed first.
    await expect
      .poll(() => page.locator('[data-testid^="profile-field-"]').first().getAttribute('data-testid'))
      .toBe('profile-field-HOMEOWNERC');
    const ehi = expected.fields[1];
    const a = ehi.values[0];
    expect(await page.getByTestId(`profile-value-EHI-${a.code}`).innerText()).toContain(`${(a.share * 100).toFixed(1)}%`);
    expect(await page.getByTestId(`profile-value-EHI-${a.code}`).innerText()).toContain(String(a.index));
    await shot(page, 'insight-profile');
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('profile-png').click()]);
    expect(readFileSync((await png.path())!).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('profile-csv').click()]);
    const lines = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(lines[0]).toBe('field,field_label,code,label,count,share,base_count,base_share,index,confidence');
    expect(lines.some((l) => l.startsWith(`EHI,Estimated household income,${a.code},`) && l.includes(`,${a.count},`))).toBe(true);
    await page
      .getByTestId('inclusion-owners')
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
  });

  it('like keeps the most alike, counted as the API counts them, and shows the model’s lift by decile and traits in words', async () => {
    const { page } = desk;
    await page.getByTestId(`inclusion-${ids.owners}`).getByRole('button').click();
    await page.getByTestId('like-seed-add').selectOption(ids.married!);
    await page.getByTestId('like-top').fill('250');
    await expect.poll(countText).toBe(count(await total({ like: { seed: ids.married, top: 250 } })));
    await page.getByTestId('like-check').click();
    await page.getByTestId('like-decile-10').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid^="like-decile-"]').count()).toBe(10);
    expect(await page.getByTestId('like-traits').locator('li').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('like-traits').innerText()).toMatch(/Marital status|married/i);
    await shot(page, 'insight-like');
    await page.getByTestId('like-clear').click();
    await expect.poll(countText).toBe(count(await total()));
  });

  it('the Overlap view shows the API’s pairs, and a region clicked becomes the audience', async () => {
    const { page } = desk;
    await page.getByTestId('tab-overlap').click();
    await page.getByTestId('overlap-add').selectOption(ids.owners!);
    await page.getByTestId('overlap-add').selectOption(ids.married!);
    await page.getByTestId('overlap-count').click();
    const expected = await post('/api/audiences/overlap', { state: STATE, sets: [ids.owners, ids.married] });
    await expect.poll(() => page.getByTestId('overlap-pair-0-1').innerText()).toBe(count(expected.pairs[0][1]));
    expect(await page.getByTestId('overlap-pair-0-0').innerText()).toBe(count(expected.pairs[0][0]));
    await shot(page, 'insight-overlap');
    // Owners who are not married: include owners, exclude married.
    const onlyOwners = expected.regions.find((r: { in: number[] }) => r.in.length === 1 && r.in[0] === 0).count;
    await page.getByTestId('overlap-region-0').click();
    await expect.poll(countText).toBe(count(onlyOwners));
    // Both: include owners, exclude everyone who is not married (a saved "everyone but" audience).
    await page.getByTestId('tab-overlap').click();
    await page.getByTestId('overlap-region-0-1').click();
    await expect.poll(countText).toBe(count(expected.pairs[0][1]));
    // A cell of the matrix: the people of a set, whatever the other sets.
    await page.getByTestId('tab-overlap').click();
    await page.getByTestId('overlap-pair-1-1').click();
    await expect.poll(countText).toBe(count(expected.pairs[1][1]));
    expect(desk.consoleErrors).toEqual([]);
  });
});
