// A dataset named by what identifies its contents, apart from contract.ts so that the contract's
// parts (import, data source) can name it without importing the contract.
/** Which dataset something was made on: saved audiences and audit entries keep it. */
export interface DatasetRef {
  /** The file's name and the time it was written: another file, or the same name rewritten, is another dataset. */
  id: string;
  name: string;
  records: number;
}
