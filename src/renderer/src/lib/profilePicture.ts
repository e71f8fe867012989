// The profile as a picture (docs/insight.md): the strongest fields shown, each value a bar of its share
// in the audience over a thin bar of its share in the state, drawn as a standalone SVG document and
// saved as PNG through the map's picture path (lib/mapExport.ts, pngOf).
import type { ProfileField } from '../../../shared/profile';
import { saveBlobFile } from './download';
import { pngOf } from './mapExport';

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The SVG text of `fields` (at most 12 of them), under a heading. */
export function profileSvg(fields: readonly ProfileField[], heading: string): string {
  const width = 720;
  const row = 16;
  const parts: string[] = [`<text x="8" y="20" font-size="15" font-weight="600" fill="#1d2430">${escape(heading)}</text>`];
  let y = 36;
  for (const field of fields.slice(0, 12)) {
    parts.push(`<text x="8" y="${y + 12}" font-size="13" font-weight="600" fill="#1d2430">${escape(field.label)}</text>`);
    y += row + 4;
    const most = Math.max(0.0001, ...field.values.map((v) => Math.max(v.share, v.baseShare)));
    for (const v of field.values) {
      const w = (share: number) => Math.round((300 * share) / most);
      parts.push(`<text x="16" y="${y + 11}" font-size="11" fill="#3b4657">${escape(v.label.slice(0, 38))}</text>`);
      parts.push(`<rect x="280" y="${y + 1}" width="${w(v.share)}" height="8" fill="#2f6fdb"/>`);
      parts.push(`<rect x="280" y="${y + 10}" width="${w(v.baseShare)}" height="3" fill="#9aa6b8"/>`);
      parts.push(`<text x="${width - 110}" y="${y + 11}" font-size="11" fill="#1d2430">index ${v.index ?? '–'}</text>`);
      y += row;
    }
    y += 6;
  }
  const body = `<rect x="0" y="0" width="${width}" height="${y}" fill="#ffffff"/>${parts.join('')}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}">${body}</svg>`;
}

export async function saveProfilePng(fileName: string, fields: readonly ProfileField[], heading: string): Promise<void> {
  saveBlobFile(fileName, await pngOf(profileSvg(fields, heading)));
}
