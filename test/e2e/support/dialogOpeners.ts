// The app's dialogs and the control that opens each: the dialogs and accessibility tests both go
// through every one of them.
export const DIALOG_OPENERS = [
  ['import', 'open-import'],
  ['datasets', 'open-datasets'],
  ['datasource', 'open-datasource'],
  ['lists', 'lists-open'],
  ['match', 'open-match'],
  ['optouts', 'open-optouts'],
] as const;
