// What an installer carries, measured on electron-builder's unpacked Linux target: the app.asar file, the
// files unpacked beside it (app.asar.unpacked), and the node_modules inside the asar per package. The
// packaging test prints these; docs/app.md quotes them.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { getRawHeader, type DirectoryRecord, type FileRecord } from '@electron/asar';

export interface Payload {
  /** Bytes of resources/app.asar. */
  asarBytes: number;
  /** Bytes of every file under resources/app.asar.unpacked. */
  unpackedBytes: number;
  /** Bytes of the files under node_modules/ inside the asar (unpacked ones excluded: counted above). */
  nodeModulesInAsarBytes: number;
  /** The same, per top-level package (`name` or `@scope/name`). */
  packages: Record<string, number>;
}

function folderBytes(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + folderBytes(join(path, name)), 0);
}

type Entry = DirectoryRecord | FileRecord | { link: string };

/** Sums the packed (not unpacked) file sizes below `entry`. */
function packedBytes(entry: Entry): number {
  if ('files' in entry) return Object.values(entry.files as Record<string, Entry>).reduce((sum, e) => sum + packedBytes(e), 0);
  if ('size' in entry && !entry.unpacked) return Number(entry.size);
  return 0;
}

/**
 * Every package folder inside the asar, as package-lock.json names them (`node_modules/a`,
 * `node_modules/@s/b`, `node_modules/a/node_modules/c`).
 */
export function asarPackagePaths(asar: string): string[] {
  const found: string[] = [];
  const visit = (modules: Entry, prefix: string): void => {
    if (!('files' in modules)) return;
    for (const [name, entry] of Object.entries(modules.files as Record<string, Entry>)) {
      if (!('files' in entry)) continue;
      if (name.startsWith('@')) {
        for (const [sub, subEntry] of Object.entries(entry.files as Record<string, Entry>)) {
          found.push(`${prefix}/${name}/${sub}`);
          const nested = (subEntry as DirectoryRecord).files?.['node_modules'];
          if (nested) visit(nested, `${prefix}/${name}/${sub}/node_modules`);
        }
      } else {
        found.push(`${prefix}/${name}`);
        const nested = entry.files['node_modules'];
        if (nested) visit(nested, `${prefix}/${name}/node_modules`);
      }
    }
  };
  const modules = (getRawHeader(asar).header.files as Record<string, Entry>)['node_modules'];
  if (modules) visit(modules, 'node_modules');
  return found.sort();
}

export function measurePayload(resourcesDir: string): Payload {
  const asar = join(resourcesDir, 'app.asar');
  const root = getRawHeader(asar).header as DirectoryRecord;
  const modules = (root.files as Record<string, Entry>)['node_modules'];
  const packages: Record<string, number> = {};
  if (modules && 'files' in modules) {
    for (const [name, entry] of Object.entries(modules.files as Record<string, Entry>)) {
      if (name.startsWith('@') && 'files' in entry) {
        for (const [sub, subEntry] of Object.entries(entry.files as Record<string, Entry>))
          packages[`${name}/${sub}`] = packedBytes(subEntry);
      } else packages[name] = packedBytes(entry);
    }
  }
  return {
    asarBytes: statSync(asar).size,
    unpackedBytes: folderBytes(join(resourcesDir, 'app.asar.unpacked')),
    nodeModulesInAsarBytes: Object.values(packages).reduce((a, b) => a + b, 0),
    packages,
  };
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

export function describePayload(p: Payload): string {
  const biggest = Object.entries(p.packages)
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => `${name} ${mb(bytes)}`)
    .join(', ');
  return (
    `app.asar ${mb(p.asarBytes)}, app.asar.unpacked ${mb(p.unpackedBytes)}, total ${mb(p.asarBytes + p.unpackedBytes)}; ` +
    `node_modules in the asar ${mb(p.nodeModulesInAsarBytes)} (${Object.keys(p.packages).length} packages: ${biggest})`
  );
}
