// Text read from a backup (key, list and audience names, a ClickHouse address, a table name) before
// anyone has vouched for it: shown in a terminal or a dialog only with its control and direction
// characters written out as \u escapes, so a crafted name cannot move the cursor, fake a line of the
// summary, or reverse what the user reads; and clipped, so it cannot fill the screen.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function shownText(text: string, max = 100): string {
  const escaped = text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > max ? `${escaped.slice(0, max - 1)}…` : escaped;
}
