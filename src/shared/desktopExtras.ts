// What the Electron preload offers beside the contract's operations: things only a desktop shell can
// do. Browser mode has none of them, so the renderer must treat each as optional.
export const DESKTOP_CHANNELS = {
  /** Reveal a file in the OS file manager; only a file this session exported. */
  showInFolder: 'app/showInFolder',
} as const;

export interface DesktopExtras {
  showInFolder(path: string): Promise<void>;
}
