// axe-core (the npm package, injected into the page) over the real desk in real Chromium, in the
// light and the dark scheme: the workspace with each canvas tab, the filter editor, the record
// drawer, and every dialog (import, datasets, data source, suppression lists, match, opt-outs). No serious or
// critical violation of any rule axe runs by default (colour contrast included).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations } from './support/axe';
import { useDeskInState } from './support/deskInState';
import { rpcSettled } from './support/desk';
import { DIALOG_OPENERS } from './support/dialogOpeners';

const desk = useDeskInState('CA');
// Its first page of people shown before any test looks.
beforeAll(() => desk.page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().waitFor());

const SCREENS: Array<{ name: string; open: (page: Page) => Promise<void>; close: (page: Page) => Promise<void> }> = [
  ...['people', 'map', 'crosstab', 'breakdown', 'profile', 'overlap', 'export', 'saved', 'api'].map((tab) => ({
    name: `the ${tab} tab`,
    open: async (page: Page) => {
      await page.getByTestId(`tab-${tab}`).click();
      await page.getByTestId('canvas-view').locator('> *').first().waitFor();
      // The report's counts in before axe looks (a stale report is checked in staleContrast.test.ts).
      if (tab === 'map') {
        await page.getByTestId('geo-map').waitFor();
        await page.locator('[data-testid="report-scroll"][aria-busy="false"]').waitFor();
      }
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
      await page.getByTestId('values-EHI').waitFor();
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
  ...DIALOG_OPENERS.map(([name, opener]) => ({
    name: `the ${name} dialog`,
    open: async (page: Page) => {
      await page.getByTestId(opener).click();
      await page.getByTestId(`${name}-dialog`).waitFor();
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
        // What the screen loads on opening (a dialog's lists, a tab's answers, again in the dark
        // pass over the light pass's answers still shown) is in before axe looks.
        await rpcSettled(desk);
        const found = await axeViolations(page);
        await screen.close(page);
        expect(found).toEqual([]);
      });
});
