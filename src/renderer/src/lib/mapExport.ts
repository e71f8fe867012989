// A map as a picture file: the SVG on screen as a standalone document (its colours and lines are
// attributes, so it needs no stylesheet), or the same drawn onto a canvas at twice its size as PNG.
// The SVG reaches the canvas through a data: URL, which the Content-Security-Policy's img-src allows
// (blob: is not needed), and an SVG from a data: URL does not taint the canvas.
import { saveBlobFile } from './download';

/** The SVG element as a standalone SVG document, with a heading line drawn above it. */
export function svgDocument(svg: SVGSVGElement, heading: string): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.removeAttribute('class');
  copy.removeAttribute('style');
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  const [x, y, w, h] = (copy.getAttribute('viewBox') ?? '0 0 600 400').split(/\s+/).map(Number) as [number, number, number, number];
  const band = 28;
  copy.setAttribute('viewBox', `${x} ${y - band} ${w} ${h + band}`);
  copy.setAttribute('width', String(w));
  copy.setAttribute('height', String(h + band));
  // The page's own attributes (focus, roles, test ids) are not part of the picture, the root's included.
  const pageOnly = ['tabindex', 'role', 'aria-pressed', 'aria-roledescription', 'aria-describedby', 'data-testid', 'class'];
  for (const el of [copy, ...copy.querySelectorAll(pageOnly.map((a) => `[${a}]`).join(','))]) {
    for (const attr of pageOnly) el.removeAttribute(attr);
  }
  // The title band in the map's own scheme: the drawing's background (light or dark) and a text colour that reads on it.
  const paper = copy.querySelector('rect')?.getAttribute('fill') ?? '#ffffff';
  const ink = paper === '#ffffff' ? '#1d2430' : '#e4e7ec';
  const ns = 'http://www.w3.org/2000/svg';
  const back = document.createElementNS(ns, 'rect');
  for (const [k, v] of Object.entries({ x: x, y: y - band, width: w, height: band, fill: paper })) back.setAttribute(k, String(v));
  const text = document.createElementNS(ns, 'text');
  for (const [k, v] of Object.entries({ x: x + 8, y: y - band + 19, 'font-size': 14, 'font-weight': 600, fill: ink }))
    text.setAttribute(k, String(v));
  text.textContent = heading;
  copy.insertBefore(text, copy.firstChild);
  copy.insertBefore(back, copy.firstChild);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
}

export function saveSvg(fileName: string, svg: SVGSVGElement, heading: string): void {
  saveBlobFile(fileName, new Blob([svgDocument(svg, heading)], { type: 'image/svg+xml' }));
}

/** The SVG document drawn at `scale` onto a white canvas, as PNG bytes. */
export async function pngOf(svgText: string, scale = 2): Promise<Blob> {
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgText)}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(image.naturalWidth * scale);
  canvas.height = Math.ceil(image.naturalHeight * scale);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('This window cannot draw a picture (no 2D canvas).');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('The picture could not be made.'))), 'image/png'),
  );
}

export async function savePng(fileName: string, svg: SVGSVGElement, heading: string): Promise<void> {
  saveBlobFile(fileName, await pngOf(svgDocument(svg, heading)));
}
