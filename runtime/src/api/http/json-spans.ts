/**
 * Locates values inside a JSON text, so a value can be passed on exactly as the client wrote it (whitespace,
 * key order, number spelling) instead of re-serialising what `JSON.parse` produced.
 *
 * The text must already have been accepted by `JSON.parse`: this scanner trusts the grammar and only finds
 * boundaries. Containers deeper than `maxDepth` are skipped iteratively, so hostile nesting cannot overflow the stack.
 */

export interface JsonSpan {
  /** `text.slice(start, end)` is the value's exact source text. */
  readonly start: number;
  readonly end: number;
  /** Object members (a repeated name keeps its last value, as in `JSON.parse`); absent beyond `maxDepth`. */
  readonly members?: ReadonlyMap<string, JsonSpan>;
  /** Array items; absent beyond `maxDepth`. */
  readonly items?: readonly JsonSpan[];
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

class Scanner {
  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  skipWhitespace(i: number): number {
    while (WHITESPACE.has(this.text[i]!)) i++;
    return i;
  }

  expect(i: number, char: string): number {
    if (this.text[i] !== char) throw new Error(`locateJson: expected '${char}' at ${i}; was the text checked with JSON.parse first?`);
    return i + 1;
  }

  /** End (exclusive) of the string starting with the quote at `i`. */
  stringEnd(i: number): number {
    let j = i + 1;
    for (;;) {
      const c = this.text[j];
      if (c === undefined) throw new Error('locateJson: unterminated string');
      if (c === '\\') j += 2;
      else if (c === '"') return j + 1;
      else j++;
    }
  }

  /** End (exclusive) of the object or array starting at `i`, without building anything. */
  containerEnd(i: number): number {
    let depth = 0;
    for (let j = i; j < this.text.length; j++) {
      const c = this.text[j];
      if (c === '"') j = this.stringEnd(j) - 1;
      else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) return j + 1;
    }
    throw new Error('locateJson: unterminated container');
  }

  scalarEnd(i: number): number {
    let j = i;
    while (j < this.text.length && !WHITESPACE.has(this.text[j]!) && !',]}'.includes(this.text[j]!)) j++;
    return j;
  }

  /** The value starting at `i` (no leading whitespace). */
  value(i: number, depth: number): JsonSpan {
    const c = this.text[i];
    if (c === '"') return { start: i, end: this.stringEnd(i) };
    if (c !== '{' && c !== '[') return { start: i, end: this.scalarEnd(i) };
    if (depth >= this.maxDepth) return { start: i, end: this.containerEnd(i) };
    return c === '{' ? this.object(i, depth) : this.array(i, depth);
  }

  object(start: number, depth: number): JsonSpan {
    const members = new Map<string, JsonSpan>();
    let i = this.skipWhitespace(start + 1);
    if (this.text[i] === '}') return { start, end: i + 1, members };
    for (;;) {
      const nameEnd = this.stringEnd(i);
      const name = JSON.parse(this.text.slice(i, nameEnd)) as string;
      i = this.skipWhitespace(this.expect(this.skipWhitespace(nameEnd), ':'));
      const member = this.value(i, depth + 1);
      members.set(name, member);
      i = this.skipWhitespace(member.end);
      if (this.text[i] === '}') return { start, end: i + 1, members };
      i = this.skipWhitespace(this.expect(i, ','));
    }
  }

  array(start: number, depth: number): JsonSpan {
    const items: JsonSpan[] = [];
    let i = this.skipWhitespace(start + 1);
    if (this.text[i] === ']') return { start, end: i + 1, items };
    for (;;) {
      const item = this.value(i, depth + 1);
      items.push(item);
      i = this.skipWhitespace(item.end);
      if (this.text[i] === ']') return { start, end: i + 1, items };
      i = this.skipWhitespace(this.expect(i, ','));
    }
  }
}

/** The span tree of a JSON text already accepted by `JSON.parse`, built down to `maxDepth` levels of containers. */
export function locateJson(text: string, maxDepth: number): JsonSpan {
  const scanner = new Scanner(text, maxDepth);
  return scanner.value(scanner.skipWhitespace(0), 0);
}
