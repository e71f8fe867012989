// How a request's string values reach the SQL of one query. On a server that has query parameters
// (19.11 and later: serverDialect.ts) each value is a placeholder, `{v0:String}`, and travels beside the
// query as `param_v0`, so no request value is ever part of the SQL text; on an older server (Debian's
// 18.16) each is a literal written by the one encoder (sqlLiteral.ts). A binder lives for one query:
// it names the placeholders and keeps their values for that query's request.
//
// Numbers stay literals on every version (sqlNumber accepts finite numbers only, so they carry no
// text). A string holding a lone surrogate stays a literal too: a parameter travels in the URL, where
// it would become U+FFFD and match values that hold one, while the literal encoder writes bytes no
// stored value holds, so it matches nothing, as on the embedded engine.
import { sqlString, sqlStringList } from './sqlLiteral';

/** The values of one query's placeholders, by name (sent as `param_<name>`). */
export type QueryParams = Record<string, string | string[]>;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export class SqlValues {
  readonly params: QueryParams = {};
  private next = 0;

  /** `parameters`: the server takes query parameters (ServerDialect.queryParameters). */
  constructor(readonly parameters: boolean) {}

  /** A string value: a placeholder, or a literal. */
  string(value: string): string {
    if (!this.parameters || LONE_SURROGATE.test(value)) return sqlString(value);
    return `{${this.name(value)}:String}`;
  }

  /**
   * The right side of `column IN …` for a list of strings (never empty): one Array(String) parameter
   * made a set (`(SELECT arrayJoin(…))`, which every version with parameters reads as a set, however
   * long), or a tuple of literals.
   */
  stringSet(values: readonly string[]): string {
    if (!this.parameters || values.some((v) => LONE_SURROGATE.test(v))) return sqlStringList(values);
    if (values.length === 0) throw new Error('An IN list needs at least one value.');
    return `(SELECT arrayJoin({${this.name([...values])}:Array(String)}))`;
  }

  private name(value: string | string[]): string {
    const name = `v${this.next++}`;
    this.params[name] = value;
    return name;
  }
}

/** A binder that writes literals: for SQL built where no request is sent (tests of the text, the loader). */
export function literalValues(): SqlValues {
  return new SqlValues(false);
}
