// axe-core (the npm package, injected into the page) over the real desk in real Chromium, in the
// light and the dark scheme: the workspace with each canvas tab, the filter editor, the record
// drawer, and every dialog (import, datasets, data source, suppression lists). No serious or
// critical violation of any rule axe runs by default (colour contrast included).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startDesk, stopDesk, type Desk } from './support/desk';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let desk: Desk;
beforeAll(async () => {
  desk = await startDesk(inject('datasetPath'));
  await desk.page.getByTestId('dataset-info').waitFor();
  await desk.page.getByTestId('state-select').selectOption('CA');
  await desk.page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().waitFor();
});
afterAll(() => stopDesk(desk));

/** The serious and critical violations axe finds in the page as it is now, one line per element. */
async function violations(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol: the app's Content-Security-Policy forbids inline scripts.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE);
  const found = await page.locator('html').evaluate(async (html) => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<any> } }).axe;
    const result = await axe.run(html.ownerDocument, { resultTypes: ['violations'] });
    return (result.violations as any[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n: any) => `${v.id}: ${n.target.join(' ')} ${n.failureSummary?.split('\n')[1] ?? ''}`.trim()));
  });
  return found;
}

const SCREENS: Array<{ name: string; open: (page: Page) => Promise<void>; close: (page: Page) => Promise<void> }> = [
  ...['people', 'map', 'crosstab', 'breakdown', 'profile', 'overlap', 'export', 'saved', 'api'].map((tab) => ({
    name: `the ${tab} tab`,
    open: async (page: Page) => {
      await page.getByTestId(`tab-${tab}`).click();
      await page.getByTestId('canvas-view').locator('> *').first().waitFor();
      if (tab === 'map') await page.getByTestId('geo-map').waitFor();
      if (tab === 'crosstab') await page.getByTestId('crosstab-table').waitFor();
      if (tab === 'breakdown') await page.locator('[data-testid^="breakdown-bar-"]').first().waitFor();
      if (tab === 'profile') await page.locator('[data-testid^="profile-field-"]').first().waitFor();
    },
    close: async () => undefined,
  })),
  {
    name: 'a filter editor',
    open: async (page) => {
      await page.getByTestId('tab-people').click();
      await page.getByTestId('field-search').fill('income');
      await page.getByTestId('field-option-EHI').click();
      await page.getByTestId('filter-editor-EHI').waitFor();
    },
    close: async (page) => {
      await page.getByTestId('filter-remove').click();
    },
  },
  {
    name: 'the record drawer',
    open: async (page) => {
      await page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().click();
      await page.getByTestId('record-title').filter({ hasNotText: 'Loading' }).waitFor();
    },
    close: async (page) => page.getByTestId('record-close').click(),
  },
  ...(
    [
      ['import', 'open-import'],
      ['datasets', 'open-datasets'],
      ['datasource', 'open-datasource'],
      ['lists', 'lists-open'],
    ] as const
  ).map(([name, opener]) => ({
    name: `the ${name} dialog`,
    open: async (page: Page) => {
      await page.getByTestId(opener).click();
      await page.getByTestId(`${name}-dialog`).waitFor();
      // What the dialog loads on opening (a list, the current source) is in before axe looks.
      await page.waitForLoadState('networkidle');
    },
    close: async (page: Page) => {
      await page.getByTestId(`${name}-close`).click();
      await page.getByTestId(`${name}-dialog`).waitFor({ state: 'detached' });
    },
  })),
];

describe('accessibility (axe-core)', () => {
  for (const scheme of ['light', 'dark'] as const)
    for (const screen of SCREENS)
      it(`finds no serious or critical violation on ${screen.name} (${scheme})`, async () => {
        const { page } = desk;
        await page.emulateMedia({ colorScheme: scheme });
        await screen.open(page);
        const found = await violations(page);
        await screen.close(page);
        expect(found).toEqual([]);
      });
});
