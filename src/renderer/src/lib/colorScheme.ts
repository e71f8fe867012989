// The system's colour scheme, followed live: for the parts whose colours are not CSS variables
// (the grid's theme, the map's SVG attributes, kept as attributes so an exported picture matches).
import { onBeforeUnmount, ref, type Ref } from 'vue';

const DARK = '(prefers-color-scheme: dark)';

/** True while the system asks for dark colours; follows a change without a reload. */
export function usePrefersDark(): Ref<boolean> {
  const query = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(DARK) : null;
  const dark = ref(query?.matches ?? false);
  const follow = (e: MediaQueryListEvent) => (dark.value = e.matches);
  query?.addEventListener('change', follow);
  onBeforeUnmount(() => query?.removeEventListener('change', follow));
  return dark;
}
