// How a request body becomes a value: JSON.parse, then a refusal of any object that names a key twice.
//
// JSON.parse keeps the last of two equal keys without a word, so `{"state":"CA","state":"TX"}` would
// be read as TX while a proxy, a log or another JSON reader in front of the server may see CA (RFC 8259,
// section 4: such texts behave unpredictably). A reviver cannot help (it sees each key once, after the
// object is built), and no runtime dependency is added for this: the readers that do see every key
// (jsonc-parser's visitor, @humanwhocodes/momoa's syntax tree) are lenient dialect parsers or build a
// whole tree, and json-parse-even-better-errors and secure-json-parse do not look for duplicates at all.
// So the body, at most BODY_LIMIT_BYTES and already accepted by JSON.parse, is scanned once more by
// hand: one pass over its characters, one set of keys per open object. Being valid JSON, it needs no
// error handling of its own; keys are compared after their escapes are undone (`"a"` and `"\u0061"`
// are one key, as JSON.parse sees them).
import { AppError } from '../shared/errors';
import { cut } from '../shared/inputErrors';

export interface DuplicateKey {
  /** The key that appears twice in one object. */
  key: string;
  /** The top-level key it is under (itself, when the duplicate is at the top). */
  topLevel: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The first key that appears twice in one object of `text`, which must be valid JSON. */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  // One entry per open object (its keys so far) or array (null).
  const open: Array<Set<string> | null> = [];
  let keyNext = false;
  let topLevel = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      let escaped = false;
      while (end < text.length && text.charCodeAt(end) !== QUOTE) {
        if (text.charCodeAt(end) === BACKSLASH) {
          escaped = true;
          end++;
        }
        end++;
      }
      const keys = open[open.length - 1];
      if (keys && keyNext) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        if (open.length === 1) topLevel = key;
        if (keys.has(key)) return { key, topLevel };
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      keyNext = true;
    } else if (c === '[') {
      open.push(null);
      keyNext = false;
    } else if (c === '}' || c === ']') {
      open.pop();
      keyNext = false;
    } else if (c === ',') {
      keyNext = open[open.length - 1] instanceof Set;
    }
  }
  return undefined;
}

/** A request body as a value: 400 `invalid_json` when it is not JSON, 400 `invalid_request` for a key given twice. */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid JSON.');
  }
  // A body that is not an object is refused as such later (invalid_json), whatever it holds.
  const duplicate = typeof value === 'object' && value !== null && !Array.isArray(value) ? findDuplicateKey(text) : undefined;
  if (duplicate)
    throw new AppError(
      'invalid_request',
      `The request body names the key ${JSON.stringify(cut(duplicate.key))} twice in one object; give each key once.`,
      cut(duplicate.topLevel),
    );
  return value;
}
