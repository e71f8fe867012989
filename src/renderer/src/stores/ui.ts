// Layout state and the app-wide error messages (from the error handler and unhandled rejections).
import { defineStore } from 'pinia';
import { ref } from 'vue';

export type SideTab = 'breakdown' | 'crosstab' | 'map' | 'export' | 'saved' | 'api';

export const useUiStore = defineStore('ui', () => {
  const tab = ref<SideTab>('breakdown');
  const errors = ref<Array<{ id: number; message: string }>>([]);
  let next = 1;

  function reportError(message: string): void {
    if (errors.value.some((e) => e.message === message)) return;
    errors.value = [...errors.value.slice(-3), { id: next++, message }];
  }

  function dismissError(id: number): void {
    errors.value = errors.value.filter((e) => e.id !== id);
  }

  return { tab, errors, reportError, dismissError };
});
