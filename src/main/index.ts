// Electron main entry (bundled by electron-vite to out/main/index.js). Everything lives in
// lifecycle.ts so tests can drive it with a mocked electron module.
import { startApp } from './lifecycle';

startApp().catch((e: unknown) => {
  console.error('Audience Desk failed to start:', e);
  process.exit(1);
});
