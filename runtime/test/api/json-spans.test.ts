import { expect } from 'chai';
import { locateJson, type JsonSpan } from '../../src/api/http/json-spans.js';

/** A seeded generator of JSON texts with odd but valid spellings: whitespace, escapes, number forms, unicode. */
function makeRandom(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

const WS = ['', ' ', '\n', '\t ', '\r\n  '];
const NUMBERS = ['0', '-0', '1.0', '2e3', '-1.5E-7', '12345678901234567890', '1e400', '0.1'];
const STRINGS = ['""', '"a"', '"\\"q\\\\"', '"\\u00e9é"', '"😀 \\ud83d\\ude00"', '"]}{[,:"', '"\\n\\t\\/"'];

function generate(rand: () => number, depth: number): string {
  const ws = () => WS[Math.floor(rand() * WS.length)]!;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const kind = depth > 3 ? Math.floor(rand() * 3) : Math.floor(rand() * 5);
  switch (kind) {
    case 0:
      return pick(NUMBERS);
    case 1:
      return pick(STRINGS);
    case 2:
      return pick(['true', 'false', 'null']);
    case 3: {
      const n = Math.floor(rand() * 4);
      return `[${ws()}${Array.from({ length: n }, () => generate(rand, depth + 1)).join(`${ws()},${ws()}`)}${ws()}]`;
    }
    default: {
      const n = Math.floor(rand() * 4);
      const members = Array.from({ length: n }, (_, i) => `${pick([`"k${i}"`, `"\\u006b${i}"`, `"k${i}"`])}${ws()}:${ws()}${generate(rand, depth + 1)}`);
      return `{${ws()}${members.join(`${ws()},${ws()}`)}${ws()}}`;
    }
  }
}

/** Every located node's source text parses to the value JSON.parse put at the same place. */
function checkSpans(text: string, span: JsonSpan, value: unknown): void {
  expect(JSON.parse(text.slice(span.start, span.end))).to.deep.equal(value);
  if (span.items) span.items.forEach((item, i) => checkSpans(text, item, (value as unknown[])[i]));
  if (span.members) for (const [name, member] of span.members) checkSpans(text, member, (value as Record<string, unknown>)[name]);
}

describe('locateJson (raw JSON value extractor)', () => {
  it('finds the exact source text of every value in 2000 generated documents', () => {
    const rand = makeRandom(42);
    for (let n = 0; n < 2000; n++) {
      const text = `${WS[n % WS.length]}${generate(rand, 0)}${WS[(n + 2) % WS.length]}`;
      const value: unknown = JSON.parse(text);
      checkSpans(text, locateJson(text, 100), value);
    }
  });

  it('keeps a value byte for byte: whitespace, key order and number spelling', () => {
    const text = '[{"key":"a","value": { "z" : 1.0, "a":[ 2e3 ,"é"] } }]';
    const span = locateJson(text, 4);
    const value = span.items![0]!.members!.get('value')!;
    expect(text.slice(value.start, value.end)).to.equal('{ "z" : 1.0, "a":[ 2e3 ,"é"] }');
  });

  it('decodes escaped member names and keeps the last of repeated names, like JSON.parse', () => {
    const text = '{"\\u0076alue": 1, "value": 2, "x": "\\"}"}';
    const span = locateJson(text, 4);
    const v = span.members!.get('value')!;
    expect(text.slice(v.start, v.end)).to.equal('2');
    const x = span.members!.get('x')!;
    expect(text.slice(x.start, x.end)).to.equal('"\\"}"');
  });

  it('stops building below maxDepth but still spans deeper containers', () => {
    const text = '{"a": {"b": {"c": [1, {"d": "]"}]}}}';
    const span = locateJson(text, 2);
    const b = span.members!.get('a')!.members!.get('b')!;
    expect(b.members).to.equal(undefined);
    expect(text.slice(b.start, b.end)).to.equal('{"c": [1, {"d": "]"}]}');
  });

  it('survives hostile nesting without recursion', () => {
    const depth = 200_000;
    const text = `[{"value": ${'['.repeat(depth)}${']'.repeat(depth)}}]`;
    JSON.parse(text);
    const v = locateJson(text, 4).items![0]!.members!.get('value')!;
    expect(v.end - v.start).to.equal(2 * depth);
  });
});
