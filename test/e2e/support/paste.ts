// A paste into an element as the browser delivers one (a ClipboardEvent carrying the text), for
// controls that read what is pasted; Playwright has no paste of its own without a real clipboard.
import type { Locator } from 'playwright-core';

interface PasteWindow {
  DataTransfer: new () => { setData(format: string, data: string): void };
  ClipboardEvent: new (type: string, init: { clipboardData: unknown; bubbles: boolean; cancelable: boolean }) => Event;
}

export async function pasteText(target: Locator, text: string): Promise<void> {
  await target.evaluate((element, pasted) => {
    const page = globalThis as unknown as PasteWindow;
    const data = new page.DataTransfer();
    data.setData('text', pasted);
    element.dispatchEvent(new page.ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}
