// Builds the handler table: each operation registered exactly once (a second registration is a
// programming error and throws), each wrapped so its input is parsed first and anything it throws
// leaves as an AppError; an unexpected failure becomes internal_error and is logged, never shown.
import { INPUTS, OPERATION_NAMES, type InputOf, type OperationName, type OutputOf } from '../../shared/contract';
import { AppError, isAppError } from '../../shared/errors';
import { parseInput } from './parseInput';
import type { HandlerTable } from './types';

type Handler<K extends OperationName> = (input: InputOf<K>) => Promise<OutputOf<K>> | OutputOf<K>;

export function isOperationName(name: unknown): name is OperationName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(INPUTS, name);
}

export class HandlerRegistry {
  private readonly handlers = new Map<OperationName, Handler<never>>();

  constructor(
    private readonly logError: (operation: OperationName, error: unknown) => void,
    /** Turns an unexpected failure the caller should still understand (a full disk) into an AppError. */
    private readonly explain: (error: unknown) => AppError | null = () => null,
  ) {}

  register<K extends OperationName>(name: K, handler: Handler<K>): this {
    if (!isOperationName(name)) throw new Error(`"${String(name)}" is not an operation of the contract.`);
    if (this.handlers.has(name)) throw new Error(`The handler "${name}" is registered twice.`);
    this.handlers.set(name, handler as unknown as Handler<never>);
    return this;
  }

  /** The finished table; refuses to build while an operation of the contract has no handler. */
  build(): HandlerTable {
    const missing = OPERATION_NAMES.filter((name) => !this.handlers.has(name));
    if (missing.length) throw new Error(`No handler for ${missing.join(', ')}.`);
    const table: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (const name of OPERATION_NAMES) table[name] = this.wrap(name, this.handlers.get(name) as unknown as Handler<typeof name>);
    return Object.freeze(table) as unknown as HandlerTable;
  }

  private wrap<K extends OperationName>(name: K, handler: Handler<K>) {
    return async (input: unknown): Promise<OutputOf<K>> => {
      try {
        return await handler(parseInput(name, input));
      } catch (e) {
        if (isAppError(e)) throw e;
        const explained = this.explain(e);
        if (explained) throw explained;
        this.logError(name, e);
        throw new AppError('internal_error', 'The operation failed unexpectedly; try again.');
      }
    };
  }
}
