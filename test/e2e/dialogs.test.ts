// End to end, in real Chromium against the real browser mode of `serve`: every dialog of the top bar
// and the list controls (import, datasets, data source, suppression lists, match, opt-outs) as it
// opens, inside a 1024x700 and a 1440x900 window in both colour schemes: the sheet in the window,
// nothing wider than it, headings, labels, buttons and chosen menu options whole, the page not
// scrolling. (What each holds after use is checked where it is used: uploads, import, customerFiles.)
import { describe, expect, it } from 'vitest';
import { rpcSettled, shot } from './support/desk';
import { useDeskInState } from './support/deskInState';
import { DIALOG_OPENERS } from './support/dialogOpeners';
import { atEverySize, cutLabels, cutSelects, overflows, pageOverflow } from './support/layout';

const desk = useDeskInState('CA');

describe('the dialogs', () => {
  for (const [name, opener] of DIALOG_OPENERS)
    it(`fits the ${name} dialog inside a 1024x700 and a 1440x900 window, light and dark, its labels whole`, async () => {
      const { page } = desk;
      await page.getByTestId(opener).click();
      const dialog = `[data-testid="${name}-dialog"]`;
      await page.locator(dialog).waitFor();
      // What the dialog loads on opening (a list, the current source) is in before it is measured.
      await rpcSettled(desk);
      await atEverySize(page, async (where) => {
        expect(await overflows(page, [dialog]), where).toEqual([]);
        expect(await overflows(page, [`${dialog} > *`], true), where).toEqual([]);
        const labels = ['h2', 'h3', 'label:not(.sr-only)', 'legend', 'th', 'summary', 'button', 'strong', '.badge'];
        expect(await cutLabels(page, labels.map((tag) => `${dialog} ${tag}`).join(', ')), where).toEqual([]);
        expect(await cutSelects(page, `${dialog} select`), where).toEqual([]);
        expect(await pageOverflow(page), where).toEqual({ x: 0, y: 0 });
        await shot(page, `dialog-${name}-${where.replace(/[ ()]+/g, '-').replace(/-$/, '')}`);
      });
      await page.getByTestId(`${name}-close`).click();
      await page.locator(dialog).waitFor({ state: 'detached' });
    });
});
