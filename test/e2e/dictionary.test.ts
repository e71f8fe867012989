// End to end, in real Chromium at 1440x900 against the real browser mode of `serve`: the desk speaks
// the analyst's language. The field picker finds fields by what they mean ("income" offers EHI by
// its label first), the income breakdown reads as dollar bands from lowest to highest with counts
// equal to the API's, and the record drawer shows each field's label and a code's meaning. Expected
// words come from the shared codebook and data dictionary, every count from the loopback API.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CODEBOOK, codeLabel } from '../../src/shared/codebook';
import { dictionaryEntry } from '../../src/shared/dictionary';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';

let desk: Desk;
const STATE = 'CA';

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  await desk.page.getByTestId('dataset-info').waitFor();
  await desk.page.getByTestId('state-select').selectOption(STATE);
});
afterAll(() => stopDesk(desk));

/** Types a query into the builder's field picker; resolves with the offered fields' names, in order. */
async function offered(query: string): Promise<string[]> {
  const { page } = desk;
  const input = page.getByTestId('field-search');
  await input.click();
  await input.fill(query);
  const options = page.getByTestId('field-results').locator('[data-testid^="field-option-"]');
  await options.first().waitFor();
  const ids = await options.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid') ?? ''));
  return ids.map((id) => id.replace('field-option-', ''));
}

describe('the analyst’s language', () => {
  it('finds the income field by its meaning, label first, nothing clipped', async () => {
    const { page } = desk;
    const names = await offered('income');
    expect(names[0]).toBe('EHI');
    const first = page.getByTestId('field-option-EHI');
    expect(await first.locator('.label').innerText()).toBe(dictionaryEntry('EHI')!.label);
    expect(await first.locator('.name').innerText()).toBe('EHI');
    expect(await first.innerText()).not.toContain('`');
    // The label wraps rather than being cut: it fits its own box and the option fits the menu.
    const box = await first.evaluate((el) => {
      const label = el.querySelector('.label')!;
      const menu = el.closest('[data-testid="field-results"]')!;
      const m = menu.getBoundingClientRect();
      const o = el.getBoundingClientRect();
      return {
        labelOverflow: label.scrollWidth - label.clientWidth,
        outsideLeft: m.left - o.left,
        outsideRight: o.right - (m.left + menu.clientWidth + menu.clientLeft),
      };
    });
    expect(box.labelOverflow).toBeLessThanOrEqual(1);
    expect(box.outsideLeft).toBeLessThanOrEqual(1);
    expect(box.outsideRight).toBeLessThanOrEqual(1);
    await shot(page, 'dict-01-income-search');
    await page.keyboard.press('Escape');
  });

  it('finds marital status, do-not-call, county, home value and first name in plain words', async () => {
    const expected: Array<[string, string]> = [
      ['married', 'MARRIEDCD'],
      ['marital', 'MARRIEDCD'],
      ['do not call', 'DNC'],
      ['county', 'CNTYCD'],
      ['home value', 'MRKTHOMEVAL'],
      ['first name', 'FNAME'],
    ];
    for (const [query, field] of expected) expect((await offered(query))[0], query).toBe(field);
    const children = await offered('children');
    expect(children).toEqual(expect.arrayContaining(['CHILD', 'CHILDNBRCD']));
    await desk.page.keyboard.press('Escape');
  });

  it('breaks the audience down by income in band order, dollar labels, counts as the API’s', async () => {
    const { page } = desk;
    await page.getByTestId('tab-breakdown').click();
    await page.getByTestId('breakdown-preset-EHI').click();
    await expect.poll(() => page.getByTestId('breakdown-field').innerText()).toBe('EHI');
    const bars = page.locator('[data-testid^="breakdown-bar-"]');
    await expect.poll(() => bars.count()).toBeGreaterThan(3);
    await expect.poll(() => page.getByTestId('breakdown-bars').getAttribute('class')).not.toContain('stale');
    expect(await page.getByTestId('breakdown-field-label').innerText()).toBe(dictionaryEntry('EHI')!.label);

    const codes = await bars.evaluateAll((els) => els.map((e) => e.getAttribute('data-value') ?? ''));
    const book = CODEBOOK.EHI!.map((c) => c.code);
    // Every code is one the book knows, and they come in its order (lowest band first).
    expect(codes.every((c) => book.includes(c))).toBe(true);
    expect(codes).toEqual(book.filter((c) => codes.includes(c)));
    const labels = await bars.locator('.bar-text').allInnerTexts();
    expect(labels).toEqual(codes.map((c) => codeLabel('EHI', c)));
    expect(labels[0]).toMatch(/^(Under )?\$[\d,]+/);

    const shown = (await bars.locator('.bar-count').allInnerTexts()).map((t) => t.trim());
    for (const [i, code] of codes.entries()) {
      const r = await api(desk, 'preview', { state: STATE, limit: 0, filters: [['EHI', [code]]] });
      expect(r.status).toBe(200);
      expect(shown[i], `EHI ${code}`).toBe(count(r.json.total));
    }
    await shot(page, 'dict-02-income-breakdown');
  });

  it('opens a record with field labels and code meanings beside the codes', async () => {
    const { page } = desk;
    await page.getByTestId('tab-people').click();
    const row = page.locator('.ag-row[row-index]').nth(2);
    // The grid was just shown again: its rows are placeholders until their block arrives.
    await expect.poll(() => row.locator('[col-id="pid"]').innerText()).toMatch(/^[0-9A-F]{32}$/);
    const pid = await row.locator('[col-id="pid"]').innerText();
    await row.click();
    await page.getByTestId('record-drawer').waitFor();
    await expect.poll(() => page.getByTestId('record-pid').innerText()).toBe(pid);
    const person = (await api(desk, 'search', { state: STATE, limit: 1, filters: [['PID', [pid]]] })).json.results[0];
    await page.getByTestId('record-field-EHI').waitFor();

    for (const field of ['EHI', 'GENDER', 'EDUCATIONCD', 'MARRIEDCD']) {
      const dd = page.getByTestId(`record-field-${field}`);
      const code = String(person[field]);
      expect(await dd.getAttribute('data-value')).toBe(code);
      const meaning = codeLabel(field, code);
      if (meaning !== undefined) {
        expect(await dd.getByTestId('code-meaning').innerText()).toBe(meaning);
        if (code !== '') expect(await dd.locator('.code').innerText()).toBe(code);
      } else {
        expect(await dd.getByTestId('unknown-code').count()).toBe(1);
      }
      const dt = page.locator('dt', { has: page.locator('.field-name', { hasText: new RegExp(`^${field}$`) }) });
      expect(await dt.locator('.field-label').innerText()).toBe(dictionaryEntry(field)!.label);
    }
    // The drawer's search finds a field by its label too.
    await page.getByTestId('record-search').fill('household income');
    const found = await page.locator('[data-testid="record-drawer"] dt .field-name').allInnerTexts();
    expect(found).toContain('EHI');
    await shot(page, 'dict-03-record');
    await page.getByTestId('record-close').click();
    await page.getByTestId('record-drawer').waitFor({ state: 'detached' });
  });

  it('ran without a console error, CSP violation or uncaught exception', () => {
    expect(desk.consoleErrors).toEqual([]);
  });
});
