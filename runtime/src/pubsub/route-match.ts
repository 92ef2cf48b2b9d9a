/**
 * Routing rules' `match` expressions: the subset of CEL (Common Expression Language) that subscription rules use,
 * evaluated against the CloudEvent as `event`:
 *   event.type == "order.created" && event.data.amount >= 100
 *   event.source.startsWith("shop") || has(event.data.priority) || event.data.region in ["eu", "us"]
 * Literals (strings, numbers, true, false, null, lists), field access (`a.b`, `a["b"]`), == != < <= > >=, && || !,
 * `in`, parentheses, `size(x)`, `has(a.b)`, and the string methods startsWith, endsWith, contains, matches.
 * A rule whose expression fails at run time (a missing field, a type mismatch) does not match, as in CEL.
 */
import { RuntimeError } from '../errors/runtime-error.js';

type Value = unknown;
type Node = (event: Record<string, unknown>) => Value;

class EvalError extends Error {}

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|<=|>=|&&|\|\||[<>!.()[\],]))/y;

function tokenize(text: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) throw new Error(`unexpected character at ${at}: '${text.slice(at, at + 10)}'`);
    out.push(m[1] ?? m[2] ?? m[3] ?? m[4]!);
  }
  return out;
}

const field = (obj: Value, name: string): Value => {
  if (typeof obj !== 'object' || obj === null || !Object.hasOwn(obj, name)) throw new EvalError(`no field ${name}`);
  return (obj as Record<string, unknown>)[name];
};

const compare = (op: string, a: Value, b: Value): boolean => {
  if (op === '==') return JSON.stringify(a) === JSON.stringify(b);
  if (op === '!=') return JSON.stringify(a) !== JSON.stringify(b);
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) throw new EvalError(`cannot compare ${typeof a} with ${typeof b}`);
  return op === '<' ? a < (b as typeof a) : op === '<=' ? a <= (b as typeof a) : op === '>' ? a > (b as typeof a) : a >= (b as typeof a);
};

const bool = (v: Value): boolean => {
  if (typeof v !== 'boolean') throw new EvalError('not a boolean');
  return v;
};

const STRING_METHODS: Record<string, (s: string, arg: string) => boolean> = {
  startsWith: (s, a) => s.startsWith(a),
  endsWith: (s, a) => s.endsWith(a),
  contains: (s, a) => s.includes(a),
  matches: (s, a) => new RegExp(a).test(s),
};

class Parser {
  #i = 0;
  constructor(private readonly tokens: string[]) {}

  parse(): Node {
    const node = this.#or();
    if (this.#i < this.tokens.length) throw new Error(`unexpected '${this.tokens[this.#i]}'`);
    return node;
  }

  #peek(): string | undefined {
    return this.tokens[this.#i];
  }

  #take(expected?: string): string {
    const t = this.tokens[this.#i++];
    if (t === undefined) throw new Error('the expression ends too early');
    if (expected !== undefined && t !== expected) throw new Error(`expected '${expected}', found '${t}'`);
    return t;
  }

  #or(): Node {
    let left = this.#and();
    while (this.#peek() === '||') {
      this.#take();
      const [l, r] = [left, this.#and()];
      left = (e) => bool(l(e)) || bool(r(e));
    }
    return left;
  }

  #and(): Node {
    let left = this.#comparison();
    while (this.#peek() === '&&') {
      this.#take();
      const [l, r] = [left, this.#comparison()];
      left = (e) => bool(l(e)) && bool(r(e));
    }
    return left;
  }

  #comparison(): Node {
    const left = this.#unary();
    const op = this.#peek();
    if (op && ['==', '!=', '<', '<=', '>', '>='].includes(op)) {
      this.#take();
      const right = this.#unary();
      return (e) => compare(op, left(e), right(e));
    }
    if (op === 'in') {
      this.#take();
      const right = this.#unary();
      return (e) => {
        const list = right(e);
        if (!Array.isArray(list)) throw new EvalError('`in` needs a list');
        const v = JSON.stringify(left(e));
        return list.some((item) => JSON.stringify(item) === v);
      };
    }
    return left;
  }

  #unary(): Node {
    if (this.#peek() === '!') {
      this.#take();
      const inner = this.#unary();
      return (e) => !bool(inner(e));
    }
    return this.#postfix(this.#primary());
  }

  #postfix(node: Node): Node {
    for (;;) {
      const t = this.#peek();
      if (t === '.') {
        this.#take();
        const name = this.#take();
        if (this.#peek() === '(') {
          const method = STRING_METHODS[name];
          if (!method) throw new Error(`unknown method ${name}`);
          this.#take('(');
          const arg = this.#or();
          this.#take(')');
          const target = node;
          node = (e) => {
            const [s, a] = [target(e), arg(e)];
            if (typeof s !== 'string' || typeof a !== 'string') throw new EvalError(`${name} needs strings`);
            return method(s, a);
          };
        } else {
          const target = node;
          node = (e) => field(target(e), name);
        }
      } else if (t === '[') {
        this.#take();
        const key = this.#or();
        this.#take(']');
        const target = node;
        node = (e) => {
          const [obj, k] = [target(e), key(e)];
          if (Array.isArray(obj) && typeof k === 'number') {
            if (k < 0 || k >= obj.length) throw new EvalError('index out of range');
            return obj[k] as Value;
          }
          return field(obj, String(k));
        };
      } else return node;
    }
  }

  #primary(): Node {
    const t = this.#take();
    if (t === '(') {
      const inner = this.#or();
      this.#take(')');
      return inner;
    }
    if (t === '[') {
      const items: Node[] = [];
      while (this.#peek() !== ']') {
        items.push(this.#or());
        if (this.#peek() === ',') this.#take();
        else break;
      }
      this.#take(']');
      return (e) => items.map((n) => n(e));
    }
    if (/^\d/.test(t)) {
      const n = Number(t);
      return () => n;
    }
    if (t.startsWith('"') || t.startsWith("'")) {
      const s = JSON.parse(t.startsWith('"') ? t : `"${t.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string;
      return () => s;
    }
    if (t === 'true' || t === 'false') return () => t === 'true';
    if (t === 'null') return () => null;
    if (t === 'event') return (e) => e;
    if (t === 'size' || t === 'has') {
      this.#take('(');
      const arg = this.#or();
      this.#take(')');
      if (t === 'has') {
        return (e) => {
          try {
            arg(e);
            return true;
          } catch (err) {
            if (err instanceof EvalError) return false;
            throw err;
          }
        };
      }
      return (e) => {
        const v = arg(e);
        if (typeof v === 'string' || Array.isArray(v)) return v.length;
        if (typeof v === 'object' && v !== null) return Object.keys(v).length;
        throw new EvalError('size needs a string, list or map');
      };
    }
    throw new Error(`unknown name '${t}' (expressions start from event, e.g. event.type)`);
  }
}

export type RouteMatcher = (event: Record<string, unknown>) => boolean;

/** Compiles a rule's `match`; a syntax error is ERR_PUBSUB_SUBSCRIPTION_INVALID naming the expression. */
export function compileMatch(expression: string): RouteMatcher {
  let node: Node;
  try {
    node = new Parser(tokenize(expression)).parse();
  } catch (err) {
    throw new RuntimeError('ERR_PUBSUB_SUBSCRIPTION_INVALID', `routing rule '${expression}' cannot be parsed: ${(err as Error).message}`);
  }
  return (event) => {
    try {
      return node(event) === true;
    } catch {
      return false; // a missing field or a type mismatch: the rule does not match
    }
  };
}
