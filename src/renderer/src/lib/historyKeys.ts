// The keys of the audience's edit history: Ctrl+Z (Cmd+Z) undoes, Ctrl+Shift+Z and Ctrl+Y redo.
// Not while the user types in a text box: there the keys belong to the text.

const TEXT_INPUTS = new Set(['text', 'search', 'number', 'email', 'url', 'tel', 'password', '']);

/** True for an element whose own Ctrl+Z undoes typing (text boxes, text areas, editable content). */
export function isTextEntry(target: EventTarget | null): boolean {
  if (!target || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement) return true;
  return target instanceof HTMLInputElement && TEXT_INPUTS.has(target.getAttribute('type')?.toLowerCase() ?? '');
}

/** What a key press asks of the history, if anything. */
export function historyKeyAction(
  e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey' | 'target'>,
): 'undo' | 'redo' | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey || isTextEntry(e.target)) return null;
  const key = e.key.toLowerCase();
  if (key === 'z') return e.shiftKey ? 'redo' : 'undo';
  if (key === 'y' && !e.shiftKey) return 'redo';
  return null;
}
