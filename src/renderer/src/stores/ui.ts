// Layout state (the canvas's tab, the builder's width) and the app-wide error
// messages (from the error handler and unhandled rejections). The builder's width is kept with the
// workspace (stores/workspace).
import { defineStore } from 'pinia';
import { ref } from 'vue';

/** The builder column's width in pixels: its narrowest, its default and its widest. */
export const BUILDER_WIDTH = { min: 240, normal: 300, wide: 440, max: 640 } as const;

export function clampBuilderWidth(px: number): number {
  return Math.round(Math.min(BUILDER_WIDTH.max, Math.max(BUILDER_WIDTH.min, px)));
}

export const useUiStore = defineStore('ui', () => {
  /** The canvas tab shown (an id of components/canvas/views.ts). */
  const view = ref('people');
  const builderWidth = ref<number>(BUILDER_WIDTH.normal);
  const errors = ref<Array<{ id: number; message: string }>>([]);
  let next = 1;

  function setBuilderWidth(px: number): void {
    builderWidth.value = clampBuilderWidth(px);
  }

  function reportError(message: string): void {
    if (errors.value.some((e) => e.message === message)) return;
    errors.value = [...errors.value.slice(-3), { id: next++, message }];
  }

  function dismissError(id: number): void {
    errors.value = errors.value.filter((e) => e.id !== id);
  }

  return { view, builderWidth, errors, setBuilderWidth, reportError, dismissError };
});
