// End to end, in real Chromium against the real browser mode of `serve`: the everyday list workflow
// of issue 34. A distance from another state's ZIP flagged in the Distance fieldset (its example ZIP
// one of the state's); each list step naming the people it removed; an export of chosen fields with
// readable values appearing at once under Leave out and in the history, in words; "exported in the
// last N days" left out; a saved audience replaced after asking and reopened with its controls; the
// sample's ordinal. Every number is compared with the loopback API's answer or an SQL oracle.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { codeLabel } from '../../src/shared/codebook';
import { SqlOracle } from '../support/oracle';
import { api, count, shot, startDesk, stopDesk, type Desk } from './support/desk';
import { atEverySize, cutLabels, cutSelects, outsideWindow, overflows, pageOverflow } from './support/layout';

let desk: Desk;
let oracle: SqlOracle;
const STATE = 'CA';

beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  oracle = new SqlOracle(inject('datasetPath'));
  await desk.page.getByTestId('dataset-info').waitFor();
  await desk.page.getByTestId('state-select').selectOption(STATE);
});
afterAll(async () => {
  oracle?.close();
  await stopDesk(desk);
});

async function apiTotal(keys: Record<string, unknown> = {}): Promise<number> {
  const r = await api(desk, 'preview', { state: STATE, limit: 0, ...keys });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.total as number;
}

const countText = () => desk.page.getByTestId('audience-count').innerText();
const step = (id: string) => desk.page.getByTestId(`step-${id}`);

/** YYYY-MM-DD of the local calendar, `days` from today (the browser and this process share the machine's clock and zone). */
function localDay(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

describe('the list workflow in the browser', () => {
  it('flags a ZIP of another state in the Distance fieldset and leaves the distance out; the example ZIP is the state’s', async () => {
    const { page } = desk;
    const everyone = await apiTotal();
    await expect.poll(countText).toBe(count(everyone));
    await page.getByTestId('control-near-mode').selectOption('zip');
    const zipBox = page.getByTestId('control-near-zip');
    await expect.poll(() => zipBox.getAttribute('placeholder')).toMatch(/^\d{5}$/);
    const example = (await zipBox.getAttribute('placeholder'))!;
    expect(oracle.count(STATE, [['ZIP', [example]]])).toBeGreaterThan(0);

    const nyZip = String(oracle.distinct('NY', 'ZIP')[0]);
    await zipBox.fill(nyZip);
    const problem = page.getByTestId('control-near-problem');
    await expect.poll(() => problem.innerText()).toContain(`No one in ${STATE} lives in ZIP ${nyZip}`);
    // Not applied: the count stays the state's, and the API refuses the same key naming it.
    await expect.poll(countText).toBe(count(everyone));
    const refused = await api(desk, 'preview', { state: STATE, near: { zip: nyZip, miles: 10 } });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'invalid_request', field: 'near' });
    await shot(page, 'wf-01-near-elsewhere');
    // The flag, the Distance fieldset and its boxes whole and in the window at both sizes, in both schemes.
    await atEverySize(page, async (where) => {
      await problem.scrollIntoViewIfNeeded();
      expect(await overflows(page, ['[data-testid="control-near"]', '[data-testid="control-near-problem"]'], true), where).toEqual([]);
      expect(await outsideWindow(page, '[data-testid="control-near-problem"], [data-testid="control-near-zip"]'), where).toEqual([]);
      expect(await cutLabels(page, '[data-testid="control-near"] legend, [data-testid="control-near"] label'), where).toEqual([]);
      expect(await cutSelects(page, '[data-testid="control-near"] select'), where).toEqual([]);
      expect(await pageOverflow(page), where).toEqual({ x: 0, y: 0 });
    });
    // The API panel's request log says why that request was refused.
    await page.getByTestId('tab-api').click();
    const refusal = page.getByTestId('request-log').getByTestId('request-refusal').first();
    await expect.poll(() => refusal.innerText(), { timeout: 10_000 }).toContain(`invalid_request (near): "near" names ZIP ${nyZip}`);
    expect(await refusal.innerText()).not.toContain(desk.key);

    // The state's own ZIP applies, and the Distance step says how many people it removed.
    await zipBox.fill(example);
    await page.getByTestId('control-near-miles').fill('15');
    const near = await apiTotal({ near: { zip: example, miles: 15 } });
    await expect.poll(countText).toBe(count(near));
    await expect.poll(() => problem.count()).toBe(0);
    expect(await step('matched').getByTestId('step-removed').innerText()).toBe(`−${count(everyone - near)} people`);
    await page.getByTestId('control-near-mode').selectOption('none');
    await expect.poll(countText).toBe(count(everyone));
  });

  it('names the people each step removed: callable under its own step, exclusions, households and the sample', async () => {
    const { page } = desk;
    await page.getByTestId('control-phone').check();
    await page.getByTestId('control-households-one').check();
    await page.getByTestId('control-sample-mode').selectOption('every');
    await page.getByTestId('control-sample-every-n').fill('2');
    expect(await page.getByTestId('control-sample-every-suffix').innerText()).toBe('nd');
    const keys = { contact: { phone: 'callable' }, households: 'one', sample: { every: 2 } };
    const everyone = await apiTotal();
    const callable = await apiTotal({ contact: keys.contact });
    const households = await apiTotal({ contact: keys.contact, households: 'one' });
    const total = await apiTotal(keys);
    await expect.poll(countText).toBe(count(total));
    expect(await step('filtered').getByTestId('step-count').innerText()).toBe(count(everyone));
    expect(await step('afterContact').innerText()).toContain('Callable');
    expect(await step('afterContact').getByTestId('step-removed').innerText()).toBe(`−${count(everyone - callable)} people`);
    expect(await step('afterContact').getByTestId('step-count').innerText()).toBe(count(callable));
    expect(await step('afterHouseholds').getByTestId('step-removed').innerText()).toBe(`−${count(callable - households)} people`);
    expect(await step('total').getByTestId('step-removed').innerText()).toBe(`−${count(households - total)} people`);
    // The caption says "every 2nd person", never "every 2th".
    await expect.poll(() => page.getByTestId('count-bar').innerText()).toContain('every 2nd person');
    await shot(page, 'wf-02-steps');
    await page.getByTestId('controls-reset').click();
  });

  it('exports chosen fields with labels; the export shows at once under Leave out and in the history, in words', async () => {
    const { page } = desk;
    await page.getByTestId('control-mail').check();
    const mailable = await apiTotal({ contact: { mail: 'deliverable' } });
    await expect.poll(countText).toBe(count(mailable));
    // The exclusions menu is loaded before the export, so only an update can show the new one.
    await page.getByTestId('exclusion-add').focus();
    const exportOptions = page.locator('[data-testid="exclusion-add"] option[value^="export:"]');
    const before = await exportOptions.count();

    await page.getByTestId('tab-export').click();
    await page.getByTestId('export-fields').selectOption('custom');
    await page.getByTestId('export-field-names').fill('FNAME, INCOME, ZIPP');
    await expect.poll(() => page.getByTestId('export-fields-problem').innerText()).toMatch(/"INCOME", "ZIPP"/);
    expect(await page.getByTestId('export-start').isDisabled()).toBe(true);
    await page.getByTestId('export-field-names').fill('PID, LNAME, EHI, MARRIEDCD');
    await expect.poll(() => page.getByTestId('export-fields-count').innerText()).toBe('4 fields');
    await page.getByTestId('export-values').selectOption('labels');
    await page.getByTestId('export-start').click();
    await page.getByTestId('export-job-done').waitFor({ timeout: 30_000 });
    const rows = parse(readFileSync(await page.getByTestId('export-path').innerText(), 'utf8')) as string[][];
    expect(rows[0]).toEqual(['PID', 'LNAME', 'EHI', 'MARRIEDCD']);
    expect(rows.length - 1).toBe(mailable);
    const byPid = new Map(oracle.records(STATE, [], 1_000_000, 0).map((r) => [r.PID as string, r]));
    for (const [pid, lname, ehi, married] of rows.slice(1)) {
      const r = byPid.get(pid!)!;
      expect([lname, ehi, married]).toEqual([
        r.LNAME,
        codeLabel('EHI', r.EHI as string) ?? r.EHI,
        codeLabel('MARRIEDCD', r.MARRIEDCD as string) ?? r.MARRIEDCD,
      ]);
    }

    // At once, without a reload: the history in words, and the export under Leave out → Earlier exports.
    const history = page.getByTestId('export-history');
    await expect.poll(() => history.getByTestId('export-history-fields').first().innerText()).toContain('4 fields: Person ID');
    expect(await history.getByTestId('export-history-fields').first().innerText()).toContain('values as their meanings');
    expect(await history.getByTestId('export-history-controls').first().innerText()).toContain('mailable');
    await expect.poll(() => exportOptions.count()).toBe(before + 1);
    await shot(page, 'wf-03-export-fields');
  });

  it('leaves out everyone exported in the last N days, as the API counts exports-since', async () => {
    const { page } = desk;
    await page.getByTestId('controls-reset').click();
    await page.getByTestId('exclusion-days').fill('1');
    await page.getByTestId('exclusion-days-add').click();
    const ref = `exports-since:${localDay(0)}`;
    const chip = page.getByTestId(`exclusion-${ref}`);
    await expect.poll(() => chip.innerText()).toContain(`exported since ${localDay(0)}`);
    const left = await apiTotal({ exclude: [ref] });
    // The mailable people exported just before are the ones left out.
    expect(left).toBe((await apiTotal()) - (await apiTotal({ contact: { mail: 'deliverable' } })));
    await expect.poll(countText).toBe(count(left));
    expect(await step('afterExclusions').getByTestId('step-removed').innerText()).toBe(`−${count((await apiTotal()) - left)} people`);
  });

  it('at 1024x700 and 1440x900, light and dark: the step counts, Leave out, the Export panel’s fields and the history fit, labels whole', async () => {
    const { page } = desk;
    /** Every element of `ids` lies inside the window once scrolled to, and no text in it is cut sideways. */
    const expectWhole = async (ids: string[]): Promise<void> => {
      const viewport = page.viewportSize()!;
      for (const id of ids) {
        const element = page.getByTestId(id).first();
        await element.scrollIntoViewIfNeeded();
        const box = (await element.boundingBox())!;
        expect(box, id).not.toBeNull();
        expect(box.x, id).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `${id} at ${viewport.width}`).toBeLessThanOrEqual(viewport.width);
        const cut = await element.evaluate(
          (root) =>
            [root, ...root.querySelectorAll('*')].filter(
              (e) =>
                e.scrollWidth > e.clientWidth + 1 &&
                (globalThis as unknown as { getComputedStyle(e: unknown): { overflowX: string } }).getComputedStyle(e).overflowX !==
                  'visible',
            ).length,
        );
        expect(cut, `${id} cut at ${viewport.width}`).toBe(0);
      }
    };
    await page.getByTestId('control-phone').check();
    await page.getByTestId('tab-export').click();
    await page.getByTestId('export-fields').selectOption('custom');
    await page.getByTestId('export-field-names').fill('PID, EHI');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const size of [
        { width: 1024, height: 700 },
        { width: 1440, height: 900 },
      ]) {
        await page.setViewportSize(size);
        await expectWhole([
          'control-steps',
          'exclusion-recent',
          'export-fields',
          'export-field-names',
          'export-values',
          'export-history-fields',
        ]);
        expect(await pageOverflow(page), `page at ${size.width} ${scheme}`).toEqual({ x: 0, y: 0 });
        await shot(page, `wf-05-${scheme}-${size.width}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByTestId('export-fields').selectOption('full');
    await page.getByTestId('controls-reset').click();
  });

  it('replaces a saved audience of the same name after asking, and reopens it with its list controls', async () => {
    // Long enough to need a second line at 1024 wide (it must wrap, not be cut); the same name again differs only in case.
    const SAVED = 'Weekly mailing: married women 35-54 with over $100,000 near the office, callable, one a household';
    const SAVED_AGAIN = SAVED.replace('Weekly mailing', 'weekly MAILING');
    const { page } = desk;
    await page.getByTestId('tab-saved').click();
    await page.getByTestId('save-name').fill(SAVED);
    await page.getByTestId('save-button').click();
    await page.getByTestId(`saved-${SAVED}`).waitFor();

    // Now callable, one a household, leaving out today's exports: saved under the same name, it asks first.
    await page.getByTestId('exclusion-days').fill('1');
    await page.getByTestId('exclusion-days-add').click();
    await page.getByTestId('control-phone').check();
    await page.getByTestId('control-households-one').check();
    const keys = { contact: { phone: 'callable' }, exclude: [`exports-since:${localDay(0)}`], households: 'one' };
    const expected = await apiTotal(keys);
    await expect.poll(countText).toBe(count(expected));
    await page.getByTestId('save-name').fill(SAVED_AGAIN);
    await page.getByTestId('save-button').click();
    await page.getByTestId('save-replace').waitFor();
    expect(await page.getByTestId('save-replace').innerText()).toContain(`“${SAVED}” is saved already`);
    await shot(page, 'wf-04-replace');
    // The question and the saved audiences whole and in the window at both sizes, in both schemes.
    await atEverySize(page, async (where) => {
      expect(await overflows(page, ['[data-testid="canvas"]', '[data-testid="save-replace"]']), where).toEqual([]);
      expect(await overflows(page, ['[data-testid="saved-list"]', '[data-testid^="saved-Weekly"]'], true), where).toEqual([]);
      expect(await cutLabels(page, '[data-testid="saved-panel"] button, [data-testid="saved-panel"] label'), where).toEqual([]);
      expect(await pageOverflow(page), where).toEqual({ x: 0, y: 0 });
    });
    await page.getByTestId('save-replace-confirm').click();
    await page.getByTestId(`saved-${SAVED_AGAIN}`).waitFor();
    expect(await page.getByTestId(`saved-${SAVED}`).count()).toBe(0);

    await page.getByTestId('controls-reset').click();
    await expect.poll(countText).toBe(count(await apiTotal()));
    await page.getByTestId(`saved-${SAVED_AGAIN}`).getByTestId('saved-load-button').click();
    await expect.poll(() => page.getByTestId('control-phone').isChecked()).toBe(true);
    expect(await page.getByTestId('control-households-one').isChecked()).toBe(true);
    await page.getByTestId(`exclusion-exports-since:${localDay(0)}`).waitFor();
    await expect.poll(countText).toBe(count(expected));
  });
});
