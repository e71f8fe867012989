// Telephone area codes per state, from the `areacodes` package (the North American Numbering Plan
// Administrator's NPA report, with the centre of each code's service area). A person's phone gets
// one of the codes nearest their ZIP, so numbers in Los Angeles start 213/310/323, not 916.
import { createRequire } from 'node:module';
import type { ZipArea } from './geography';
import type { Prng } from './prng';

interface PackageAreaCode {
  type: string;
  stateCode?: string;
  location?: { latitude: number; longitude: number };
}

interface CodePoint {
  code: string;
  latitude: number;
  longitude: number;
}

let byState: Map<string, CodePoint[]> | undefined;

function load(): Map<string, CodePoint[]> {
  const data = createRequire(import.meta.url)('areacodes/lib/data.json') as Record<string, PackageAreaCode>;
  const out = new Map<string, CodePoint[]>();
  for (const [code, v] of Object.entries(data).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (v.type !== 'local' || !v.stateCode || !/^[2-9]\d\d$/.test(code)) continue;
    const list = out.get(v.stateCode) ?? [];
    list.push({ code, latitude: v.location?.latitude ?? NaN, longitude: v.location?.longitude ?? NaN });
    out.set(v.stateCode, list);
  }
  return out;
}

/** The state's area codes, in numeric order. */
export function stateAreaCodes(state: string): readonly string[] {
  byState ??= load();
  return (byState.get(state) ?? []).map((c) => c.code);
}

// Nearest code 70% of the time, second 20%, third 10%: overlays and neighbouring codes both occur.
const NEAR_SHARES = [0.7, 0.9, 1];

/** Up to three of the state's codes nearest the ZIP, nearest first (computed once per ZIP). */
const nearestCache: Array<readonly string[] | undefined> = [];
function nearest(zip: ZipArea): readonly string[] {
  const hit = nearestCache[zip.zipNumber];
  if (hit) return hit;
  byState ??= load();
  const codes = byState.get(zip.state);
  if (!codes?.length) throw new Error(`No telephone area code is known for ${zip.state}`);
  const cos = Math.cos((zip.latitude * Math.PI) / 180);
  const ranked = codes
    .map((c) => {
      const dLat = c.latitude - zip.latitude;
      const dLon = (c.longitude - zip.longitude) * cos;
      const d = Number.isFinite(dLat + dLon) ? dLat * dLat + dLon * dLon : Infinity;
      return [d, c.code] as const;
    })
    .sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1))
    .slice(0, 3)
    .map(([, code]) => code);
  nearestCache[zip.zipNumber] = ranked;
  return ranked;
}

/** An area code for someone living in `zip`. */
export function areaCodeFor(rng: Prng, zip: ZipArea): string {
  const codes = nearest(zip);
  const u = rng.float() * NEAR_SHARES[codes.length - 1]!;
  return codes[u < NEAR_SHARES[0]! ? 0 : u < NEAR_SHARES[1]! ? 1 : 2]!;
}
