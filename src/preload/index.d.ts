// The renderer's view of the preload: window.audienceDesk is the contract's operations plus the
// desktop-only extras (absent in browser mode, where the renderer uses its HTTP bridge instead).
import type { AudienceDeskApi } from '../shared/contract';
import type { DesktopExtras } from '../shared/desktopExtras';

declare global {
  interface Window {
    audienceDesk?: AudienceDeskApi & DesktopExtras;
  }
}

export {};
