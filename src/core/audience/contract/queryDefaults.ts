// The defaults of the audience operations, the same whichever engine answers and whichever
// transport asks.

/** What one preview or search may spend matching and reading before it is refused (SECURITY.md). */
export const DEFAULT_QUERY_BUDGET_MS = 5_000;

/** Values a breakdown keeps unless asked for another number. */
export const BREAKDOWN_MAX_DEFAULT = 50;

/** Values a cross-tab keeps on each axis unless asked for another number. */
export const CROSS_TAB_MAX_DEFAULT = 30;
