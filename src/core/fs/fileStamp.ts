// The time part of the file names the app makes (exports, datasets): 20261123-101500, in UTC, so
// names sort by time.
export function fileStamp(now = new Date()): string {
  return now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}
