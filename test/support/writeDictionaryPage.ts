// docs/data-dictionary.md, generated from DATA_DICTIONARY so it never drifts: test/shared/dictionary.test.ts
// checks the committed page equals dictionaryPage(). After changing the dictionary, write the page with
//   npx tsx test/support/writeDictionaryPage.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DATA_DICTIONARY, DICTIONARY_GROUPS, DICTIONARY_GROUP_NOTES, type DictionaryEntry } from '../../src/shared/dictionary';

export const DICTIONARY_PAGE_PATH = fileURLToPath(new URL('../../docs/data-dictionary.md', import.meta.url));

/** Longer code lists (routes, states, segments) are cut to their first codes here; GET /api/fields has them all. */
const CODES_SHOWN = 24;

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (c: string) => (c === '' ? '(empty)' : `\`${c}\``);

function codes(entry: DictionaryEntry): string {
  if (!entry.values) return '';
  const shown = entry.values.length > CODES_SHOWN ? entry.values.slice(0, 5) : entry.values;
  const list = shown.map((v) => `${code(v.code)} ${v.label}`).join('; ');
  return entry.values.length > shown.length ? `${list}; … (${entry.values.length} codes in all)` : list;
}

export function dictionaryPage(): string {
  const lines = [
    '# Data dictionary',
    '',
    '<!-- Generated from src/shared/dictionary.ts by test/support/writeDictionaryPage.ts; test/shared/dictionary.test.ts',
    '     fails when it is out of date. Do not edit by hand. -->',
    '',
    `Every one of the ${DATA_DICTIONARY.length} record fields, in the words an analyst would use, grouped as an analyst`,
    'looks for them. The same entries are served by `GET /api/fields` (with `X-API-KEY`) and searched by the',
    "app's field picker. Codes are the project's own codebook (src/shared/codebook.ts), in their natural order;",
    `lists of more than ${CODES_SHOWN} codes are cut short here and given in full by the API.`,
    '',
    '| group | fields | what it holds |',
    '|---|---|---|',
    ...DICTIONARY_GROUPS.map(
      (g) => `| [${g}](#${anchor(g)}) | ${DATA_DICTIONARY.filter((e) => e.group === g).length} | ${cell(DICTIONARY_GROUP_NOTES[g])} |`,
    ),
  ];
  for (const group of DICTIONARY_GROUPS) {
    const entries = DATA_DICTIONARY.filter((e) => e.group === group);
    lines.push(
      '',
      `## ${group}`,
      '',
      DICTIONARY_GROUP_NOTES[group],
      '',
      '| field | label | type | meaning | codes |',
      '|---|---|---|---|---|',
    );
    for (const e of entries) lines.push(`| \`${e.name}\` | ${cell(e.label)} | ${e.type} | ${cell(e.description)} | ${cell(codes(e))} |`);
  }
  return lines.join('\n') + '\n';
}

/** GitHub's heading anchor: lower case, spaces to hyphens, other punctuation dropped. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(DICTIONARY_PAGE_PATH, dictionaryPage());
  console.log(`Wrote ${DICTIONARY_PAGE_PATH}`);
}
