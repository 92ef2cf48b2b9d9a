/**
 * A circuit breaker's `trip` condition. Dapr evaluates a CEL expression; the ones people write are comparisons of
 * the breaker's counts joined by `&&`/`||` (`consecutiveFailures > 5`), so that is the grammar here, and anything
 * beyond it is refused at load time rather than misread:
 *
 *   expression := all ('||' all)*        all := comparison ('&&' comparison)*
 *   comparison := count ('>' | '>=' | '<' | '<=' | '==') number
 */

/** The counts a trip condition reads, since the breaker last changed state (or its interval last reset them). */
export interface TripCounts {
  readonly requests: number;
  readonly totalFailures: number;
  readonly consecutiveFailures: number;
}

export type TripRule = (counts: TripCounts) => boolean;

const COUNTS: readonly string[] = ['consecutiveFailures', 'requests', 'totalFailures'] satisfies (keyof TripCounts)[];

const COMPARE: Readonly<Record<string, (a: number, b: number) => boolean>> = {
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '==': (a, b) => a === b,
};

const TOKEN = /\s*(\|\||&&|>=|<=|==|>|<|[A-Za-z_]\w*|\d+(?:\.\d+)?)/y;

function tokens(text: string): string[] {
  const found: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    found.push(m[1]!);
    at = TOKEN.lastIndex;
  }
  if (text.slice(at).trim() !== '') throw new Error(`'${text}': cannot read '${text.slice(at).trim()}'`);
  return found;
}

/** Compiles `text` into a rule; a reason naming what is wrong is thrown for anything outside the grammar. */
export function compileTrip(text: string): TripRule {
  const words = tokens(text);
  let i = 0;
  const expected = (what: string): never => {
    throw new Error(`'${text}': expected ${what}${i < words.length ? `, found '${words[i]}'` : ' at the end'} (example: consecutiveFailures > 5)`);
  };
  const comparison = (): TripRule => {
    const count = words[i];
    if (count === undefined || !COUNTS.includes(count)) return expected(`one of ${COUNTS.join(', ')}`);
    const op = COMPARE[words[++i] ?? ''];
    if (!op) return expected('one of > >= < <= ==');
    const number = words[++i];
    if (number === undefined || !/^\d/.test(number)) return expected('a number');
    i++;
    const value = Number(number);
    return (c) => op(c[count as keyof TripCounts], value);
  };
  const joined = (op: string, part: () => TripRule, some: boolean): TripRule => {
    const parts = [part()];
    while (words[i] === op) {
      i++;
      parts.push(part());
    }
    return parts.length === 1 ? parts[0]! : some ? (c) => parts.some((p) => p(c)) : (c) => parts.every((p) => p(c));
  };
  const rule = joined('||', () => joined('&&', comparison, false), true);
  if (i < words.length) expected('&& or ||');
  return rule;
}
