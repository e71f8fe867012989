// The map's zoom and pan: a scale (1 = the whole area in view, up to MAX_ZOOM) and a translation in
// the drawing's own units, applied to one SVG group. The view never leaves the drawing: at any zoom
// the translation is kept so the visible box stays inside the areas' box.
import { computed, ref } from 'vue';

export const MAX_ZOOM = 32;
/** One wheel notch, button press or key press zooms by this factor. */
export const ZOOM_STEP = 1.5;
/** An arrow key pans by this share of what is in view. */
export const PAN_STEP = 0.15;

/** The drawing's box in its own units (the SVG viewBox). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function parseViewBox(viewBox: string): Box {
  const [x = 0, y = 0, width = 1, height = 1] = viewBox.split(/\s+/).map(Number);
  return { x, y, width, height };
}

/** Keeps t so that [box.start, box.end] scaled by k and moved by t still covers the box. */
function clampAxis(t: number, k: number, start: number, size: number): number {
  const low = (start + size) * (1 - k);
  const high = start * (1 - k);
  return Math.min(high, Math.max(low, t));
}

export function useMapZoom(box: () => Box) {
  const k = ref(1);
  const tx = ref(0);
  const ty = ref(0);

  function set(scale: number, x: number, y: number): void {
    const b = box();
    k.value = Math.min(MAX_ZOOM, Math.max(1, scale));
    tx.value = clampAxis(x, k.value, b.x, b.width);
    ty.value = clampAxis(y, k.value, b.y, b.height);
  }

  /** Zooms by `factor` keeping the drawing's point (px, py) where it is on screen (the centre when not given). */
  function zoomAt(factor: number, px?: number, py?: number): void {
    const b = box();
    const x = px ?? b.x + b.width / 2;
    const y = py ?? b.y + b.height / 2;
    const next = Math.min(MAX_ZOOM, Math.max(1, k.value * factor));
    // The map point under (x, y) before the zoom stays under it after.
    const mx = (x - tx.value) / k.value;
    const my = (y - ty.value) / k.value;
    set(next, x - next * mx, y - next * my);
  }

  /** Moves the view by (dx, dy) in the drawing's units (a drag, an arrow key). */
  function panBy(dx: number, dy: number): void {
    set(k.value, tx.value + dx, ty.value + dy);
  }

  /** An arrow key's pan: a share of what is in view, in the key's direction. */
  function panStep(dirX: number, dirY: number): void {
    const b = box();
    panBy(-dirX * b.width * PAN_STEP, -dirY * b.height * PAN_STEP);
  }

  function reset(): void {
    set(1, 0, 0);
  }

  const transform = computed(() => `translate(${tx.value.toFixed(2)} ${ty.value.toFixed(2)}) scale(${k.value.toFixed(4)})`);
  return { k, transform, zoomAt, panBy, panStep, reset };
}
