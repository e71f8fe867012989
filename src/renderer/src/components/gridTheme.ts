// AG Grid's theme, matched to the app's palette (theming API; no CSS files, no web fonts).
import { themeQuartz } from 'ag-grid-community';

export const gridTheme = themeQuartz.withParams({
  fontFamily: ['system-ui', '-apple-system', 'Segoe UI', 'Roboto', 'Helvetica Neue', 'Arial', 'sans-serif'],
  fontSize: 13,
  headerFontWeight: 600,
  accentColor: '#3056d3',
  borderColor: '#e2e5ea',
  headerBackgroundColor: '#f8f9fb',
  rowHoverColor: '#f3f6fd',
  selectedRowBackgroundColor: '#e8eefc',
  wrapperBorderRadius: 8,
  spacing: 6,
});
