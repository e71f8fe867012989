// AG Grid's themes, matched to the app's palette (theming API; no CSS files, no web fonts): a light
// one and a dark one, switched with the system's colour scheme like app.css's variables.
import { computed, type ComputedRef } from 'vue';
import { themeQuartz } from 'ag-grid-community';
import { usePrefersDark } from '../lib/colorScheme';

const shared = {
  fontFamily: ['system-ui', '-apple-system', 'Segoe UI', 'Roboto', 'Helvetica Neue', 'Arial', 'sans-serif'],
  fontSize: 13,
  headerFontWeight: 600,
  wrapperBorderRadius: 8,
  spacing: 6,
};

export const gridTheme = themeQuartz.withParams({
  ...shared,
  browserColorScheme: 'light',
  accentColor: '#3056d3',
  borderColor: '#e2e5ea',
  headerBackgroundColor: '#f8f9fb',
  rowHoverColor: '#f3f6fd',
  selectedRowBackgroundColor: '#e8eefc',
});

export const gridThemeDark = themeQuartz.withParams({
  ...shared,
  browserColorScheme: 'dark',
  backgroundColor: '#1b1f27',
  foregroundColor: '#e4e7ec',
  accentColor: '#6f8ff0',
  borderColor: '#2c323d',
  headerBackgroundColor: '#181c23',
  rowHoverColor: '#232936',
  selectedRowBackgroundColor: '#243055',
});

/** The grid theme for the system's colour scheme now, following it when it changes. */
export function useGridTheme(): ComputedRef<typeof gridTheme> {
  const dark = usePrefersDark();
  return computed(() => (dark.value ? gridThemeDark : gridTheme));
}
