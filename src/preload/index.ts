// The sandboxed preload (bundled to out/preload/index.cjs): exposes window.audienceDesk with exactly
// the contract's operations, each an ipcRenderer.invoke on the channel of the same name, plus the
// desktop extras. Nothing else of Electron or Node reaches the page.
import { contextBridge, ipcRenderer } from 'electron';
import { OPERATION_NAMES, type AudienceDeskApi, type Envelope, type InputOf, type OperationName, type OutputOf } from '../shared/contract';
import { DESKTOP_CHANNELS, type DesktopExtras } from '../shared/desktopExtras';

/**
 * A failed call rejects with a plain `{ name, code, message, field }` object rather than an Error:
 * contextBridge copies an Error's message only and drops `code` (electron/electron#25596), while a
 * plain object arrives whole. The renderer's toBridgeError reads exactly these fields.
 */
export interface BridgeFailure {
  name: 'AudienceDeskError';
  code: string;
  message: string;
  field?: string;
}

async function call(channel: string, input: unknown): Promise<unknown> {
  const envelope = (await ipcRenderer.invoke(channel, input)) as Envelope<unknown>;
  if (envelope.ok) return envelope.value;
  const { code, message, field } = envelope.error;
  const failure: BridgeFailure = { name: 'AudienceDeskError', code, message, ...(field ? { field } : {}) };
  throw failure;
}

/** One operation: its input goes out as is (main parses it), its output comes back typed by the contract. */
const operation =
  <K extends OperationName>(name: K) =>
  (input: InputOf<K>): Promise<OutputOf<K>> =>
    call(name, input ?? {}) as Promise<OutputOf<K>>;

/** Exactly the contract's operations, from its own list of names: none missing, none extra. */
function buildApi(): AudienceDeskApi {
  return Object.fromEntries(OPERATION_NAMES.map((name) => [name, operation(name)])) as AudienceDeskApi;
}

const extras: DesktopExtras = {
  showInFolder: async (path: string) => {
    await call(DESKTOP_CHANNELS.showInFolder, { path });
  },
};

export const audienceDesk = Object.freeze({ ...buildApi(), ...extras } satisfies AudienceDeskApi & DesktopExtras);

contextBridge.exposeInMainWorld('audienceDesk', audienceDesk);
