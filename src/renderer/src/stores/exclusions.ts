// What the audience can leave out (extensions.md's `exclude`): saved audiences, imported suppression
// lists and earlier exports that remember whom they wrote, each as a "kind:id" reference with a
// readable label. The choices are gathered from the three stores that own them.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { AuditEntry } from '../../../shared/contract';
import { describeError, getBridge } from '../bridge';
import { exportsSinceWords } from '../lib/controlsSummary';
import { formatCount, formatWhen } from '../lib/format';
import { useSavedStore } from './saved';
import { useSuppressionListsStore } from './suppressionLists';

/** Earlier exports offered: the most recent ones the audit log keeps. */
export const EXPORTS_OFFERED = 200;

export interface ExclusionChoice {
  ref: string;
  label: string;
}

export interface ExclusionGroup {
  label: string;
  choices: ExclusionChoice[];
}

const fileName = (path: string): string => path.split(/[\\/]/).pop() ?? path;

export function exportLabel(e: AuditEntry): string {
  return `${fileName(e.file)} (${formatCount(e.records)}, ${formatWhen(e.at)})`;
}

/** YYYY-MM-DD of the local calendar. */
const localDay = (d: Date): string =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/**
 * "Exported in the last N days" as a reference: every export finished from the start of the day N - 1
 * days before today (today being the first of the N), by the machine's local date.
 */
export function exportsInLastDays(days: number, today = new Date()): string {
  const from = new Date(today.getFullYear(), today.getMonth(), today.getDate() - (days - 1));
  return `exports-since:${localDay(from)}`;
}

export const useExclusionsStore = defineStore('exclusions', () => {
  const saved = useSavedStore();
  const lists = useSuppressionListsStore();
  const exports = ref<AuditEntry[]>([]);
  const error = ref<string | null>(null);

  async function refreshExports(): Promise<void> {
    try {
      const entries = await getBridge()['audit/list']({ limit: EXPORTS_OFFERED });
      exports.value = entries.filter((e) => e.excludable);
      error.value = null;
    } catch (e) {
      error.value = describeError(e);
    }
  }

  async function refresh(): Promise<void> {
    await Promise.all([saved.refresh(), lists.refresh(), refreshExports()]);
  }

  const groups = computed<ExclusionGroup[]>(() => [
    { label: 'Saved audiences', choices: saved.list.map((s) => ({ ref: `saved:${s.id}`, label: `${s.name} (${s.state})` })) },
    { label: 'Suppression lists', choices: lists.list.map((l) => ({ ref: `list:${l.id}`, label: l.name })) },
    { label: 'Earlier exports', choices: exports.value.map((e) => ({ ref: `export:${e.id}`, label: exportLabel(e) })) },
  ]);

  const labels = computed(() => new Map(groups.value.flatMap((g) => g.choices.map((c) => [c.ref, c.label] as const))));

  /** A reference's label; one whose source is not (or no longer) known reads as itself. */
  function labelOf(ref: string): string {
    return labels.value.get(ref) ?? exportsSinceWords(ref) ?? ref;
  }

  return { exports, error, groups, refresh, refreshExports, labelOf };
});
