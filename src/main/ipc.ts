// The IPC transport: every contract operation registered once on ipcMain.handle under its own name,
// answering an Envelope from the shared handler table; plus the desktop-only extras. A call is
// served only for our window's main frame showing our own page: another window, a subframe or a
// page that navigated elsewhere gets `forbidden`. Unknown channels have no handler at all.
import type { BrowserWindow, IpcMain, IpcMainInvokeEvent } from 'electron';
import { dispatch, type HandlerTable } from '../core/handlers';
import { OPERATION_NAMES, type Envelope } from '../shared/contract';
import { DESKTOP_CHANNELS } from '../shared/desktopExtras';
import { AppError, toErrorBody } from '../shared/errors';

export type ExtraHandler = (input: unknown) => Promise<unknown> | unknown;

export interface IpcOptions {
  handlers: HandlerTable;
  /** Desktop-only operations by channel (DESKTOP_CHANNELS). */
  extras: Record<string, ExtraHandler>;
  window: () => BrowserWindow | null;
  isAppUrl: (url: string) => boolean;
}

/** True only for our own window's main frame, showing our own page. */
export function isTrustedSender(event: IpcMainInvokeEvent, win: BrowserWindow | null, isAppUrl: (url: string) => boolean): boolean {
  if (!win || win.isDestroyed() || event.sender !== win.webContents) return false;
  const frame = event.senderFrame;
  if (!frame || frame !== win.webContents.mainFrame) return false;
  return isAppUrl(frame.url);
}

const refused = (): Envelope<never> => ({
  ok: false,
  error: { code: 'forbidden', message: 'This caller may not use Audience Desk operations.' },
});

/** Registers all channels; returns their names (each registered exactly once, or this throws). */
export function registerIpc(ipcMain: IpcMain, options: IpcOptions): string[] {
  const { handlers, extras, window, isAppUrl } = options;
  const channels: string[] = [];
  const handle = (channel: string, run: (input: unknown) => Promise<Envelope<unknown>>) => {
    if (channels.includes(channel)) throw new Error(`IPC channel ${channel} is registered twice.`);
    channels.push(channel);
    ipcMain.handle(channel, async (event, input: unknown) => (isTrustedSender(event, window(), isAppUrl) ? run(input) : refused()));
  };
  for (const name of OPERATION_NAMES) handle(name, (input) => dispatch(handlers, name, input));
  for (const [channel, extra] of Object.entries(extras)) {
    if (!Object.values(DESKTOP_CHANNELS).includes(channel as never)) throw new Error(`${channel} is not a desktop extra.`);
    handle(channel, async (input) => {
      try {
        return { ok: true, value: (await extra(input)) ?? null };
      } catch (e) {
        return { ok: false, error: toErrorBody(e).error };
      }
    });
  }
  return channels;
}

/** Input check of the show-in-folder extra: `{ path }` naming a file this session exported. */
export function showInFolderHandler(wasExported: (path: string) => boolean, reveal: (path: string) => void): ExtraHandler {
  return (input) => {
    const path = (input as { path?: unknown } | null)?.path;
    if (typeof path !== 'string' || path.length === 0 || path.length > 4096)
      throw new AppError('invalid_request', 'showInFolder needs the path of an exported file.', 'path');
    if (!wasExported(path)) throw new AppError('forbidden', 'Only files exported in this session can be shown.', 'path');
    reveal(path);
  };
}
