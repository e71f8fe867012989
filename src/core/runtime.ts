// better-sqlite3 13 ships N-API prebuilds that need Node 22 or newer (or Electron); on Node 20 the
// native module crashes the process instead of failing cleanly. This check runs before the module
// is loaded anywhere, so a wrong runtime gets a sentence instead of a segfault.
const MIN_NODE_MAJOR = 22;

export function assertSupportedRuntime(versions: NodeJS.ProcessVersions = process.versions): void {
  if (versions.electron) return;
  const major = Number(versions.node.split('.')[0]);
  if (!(major >= MIN_NODE_MAJOR)) {
    throw new Error(
      `Audience Desk needs Node ${MIN_NODE_MAJOR} or newer (this is Node ${versions.node}). ` +
        'Run it through npm (npm run cli, npm run serve, npm test), which uses the Node 22 that npm install ' +
        'put in node_modules/.bin, or install Node 22+.',
    );
  }
}

assertSupportedRuntime();
