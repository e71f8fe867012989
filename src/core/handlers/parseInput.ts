// Input checking at the edge of the handler table: every input is parsed with the contract's schema
// before a handler sees it (src/shared/inputErrors.ts words the first problem).
import { INPUTS, type InputOf, type OperationName } from '../../shared/contract';
import { parseWith } from '../../shared/inputErrors';

export function parseInput<K extends OperationName>(operation: K, input: unknown): InputOf<K> {
  // IPC and JSON both may carry `undefined` for "no input"; operations without fields accept it.
  return parseWith(INPUTS[operation], input === undefined ? {} : input) as InputOf<K>;
}
