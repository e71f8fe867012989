// The canvas's tabs: the views (each one way of looking at the same audience) and, after them, the
// tools (things done with it: export, saved audiences, the loopback API), all shown in the centre of
// the window under the count. Adding a view is adding one entry to CANVAS_VIEWS (docs/app.md, "The
// canvas"): an id (also its tab's test id, `tab-<id>`), the tab's label, and the component, which
// reads the committed audience from stores/audience and reloads when `audience.version` changes.
import type { Component } from 'vue';
import PreviewGrid from '../PreviewGrid.vue';
import MapPanel from '../geography/MapPanel.vue';
import CrossTabPanel from '../panels/CrossTabPanel.vue';
import BreakdownPanel from '../panels/BreakdownPanel.vue';
import ExportPanel from '../panels/ExportPanel.vue';
import SavedPanel from '../panels/SavedPanel.vue';
import ApiPanel from '../api/ApiPanel.vue';
import ProfileView from '../insight/ProfileView.vue';
import OverlapView from '../insight/OverlapView.vue';

export interface CanvasView {
  /** Stable id: kept in stores/ui, and the tab's test id is `tab-<id>`. */
  readonly id: string;
  /** The tab's text, and the error boundary's name for the view. */
  readonly label: string;
  readonly component: Component;
  /** True for a view that fills the canvas itself (scrolls inside); else the canvas scrolls it. */
  readonly fills?: boolean;
  /** A tool's panel: a form, kept to a readable width rather than stretched across the canvas. */
  readonly narrow?: boolean;
}

export const CANVAS_VIEWS: readonly CanvasView[] = [
  { id: 'people', label: 'People', component: PreviewGrid, fills: true },
  { id: 'map', label: 'Map', component: MapPanel },
  { id: 'crosstab', label: 'Cross-tab', component: CrossTabPanel },
  { id: 'breakdown', label: 'Breakdown', component: BreakdownPanel },
  { id: 'profile', label: 'Profile', component: ProfileView },
  { id: 'overlap', label: 'Overlap', component: OverlapView },
];

export const CANVAS_TOOLS: readonly CanvasView[] = [
  { id: 'export', label: 'Export', component: ExportPanel, narrow: true },
  { id: 'saved', label: 'Saved', component: SavedPanel, narrow: true },
  { id: 'api', label: 'API', component: ApiPanel, narrow: true },
];

/** Every tab in keyboard order: the views, then the tools. */
export const CANVAS_TABS: readonly CanvasView[] = [...CANVAS_VIEWS, ...CANVAS_TOOLS];

/** The tab with this id, or the first view (the people) for an id no tab has. */
export function canvasView(id: string): CanvasView {
  return CANVAS_TABS.find((v) => v.id === id) ?? CANVAS_VIEWS[0]!;
}
