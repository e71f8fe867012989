// The renderer's one door to the back end. In Electron the preload exposes window.audienceDesk; in
// browser mode (served by `serve`) an HTTP implementation of the same contract stands in. Stores
// call getBridge(); tests install a fake with setBridge().
import type { AudienceDeskApi } from '../../../shared/contract';
import { createHttpBridge } from './httpBridge';
import { currentPageToken } from './pageToken';
import { toBridgeError } from './bridgeError';

import type { DesktopExtras } from '../../../shared/desktopExtras';

/** The contract, plus the desktop shell's extras when the preload offers them (browser mode: none). */
export type Bridge = AudienceDeskApi & Partial<DesktopExtras>;

let current: Bridge | null = null;

function preloadBridge(): Bridge | undefined {
  return (globalThis as { audienceDesk?: Bridge }).audienceDesk;
}

/** Wraps every operation so any rejection arrives as a BridgeError with code and message. */
function normalizeErrors(api: Bridge): Bridge {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(api)) {
    wrapped[name] =
      typeof fn === 'function'
        ? async (input: unknown) => {
            try {
              return await (fn as (i: unknown) => Promise<unknown>)(input);
            } catch (e) {
              throw toBridgeError(e);
            }
          }
        : fn;
  }
  return wrapped as unknown as Bridge;
}

export function getBridge(): Bridge {
  if (current) return current;
  const preload = preloadBridge();
  current = preload ? normalizeErrors(preload) : createHttpBridge({ token: currentPageToken() });
  return current;
}

/** For tests: use this bridge instead of the preload or HTTP one. */
export function setBridge(bridge: Bridge | null): void {
  current = bridge;
}

export { BridgeError, describeError, isCancelled } from './bridgeError';
