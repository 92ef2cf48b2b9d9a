/**
 * HPACK (RFC 7541) for svcd's own HTTP/2 client of components: a full decoder (static and dynamic table, integers,
 * literals, Huffman) and the one encoding a client needs for its requests (literals without indexing, no Huffman,
 * static-table names where there are any). A component may answer with any representation, so decoding is
 * complete; what svcd sends stays simple.
 */

export class HpackError extends Error {}

/** RFC 7541 Appendix A. */
const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'],
  [':scheme', 'http'], [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'],
  [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''], ['etag', ''],
  ['expect', ''], ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''], ['if-modified-since', ''],
  ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''],
  ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''], ['range', ''],
  ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''],
  ['strict-transport-security', ''], ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''],
  ['www-authenticate', ''],
];

/**
 * Code lengths of the Huffman code of RFC 7541 Appendix B, symbols 0–255 and EOS (256). The code is canonical:
 * codes follow from the lengths alone (shorter first, then by symbol), so the table is built, not spelled out.
 */
const HUFFMAN_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30,
];
const EOS = 256;

/** The code as a binary trie: node n's children are at 2n and 2n+1; a leaf holds -1 - symbol; 0 means no child. */
const HUFFMAN_TRIE = ((): Int32Array => {
  const order = HUFFMAN_LENGTHS.map((length, symbol) => ({ length, symbol })).sort((a, b) => a.length - b.length || a.symbol - b.symbol);
  const trie = new Int32Array(2 * 2 * order.length);
  let nodes = 1;
  let code = 0;
  let previous = order[0]!.length;
  for (const { length, symbol } of order) {
    code *= 2 ** (length - previous);
    previous = length;
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const slot = 2 * node + (Math.floor(code / 2 ** bit) & 1);
      if (bit === 0) trie[slot] = -1 - symbol;
      else node = trie[slot] || (trie[slot] = nodes++);
    }
    code++;
  }
  return trie;
})();

function huffmanDecode(bytes: Buffer): string {
  const out: number[] = [];
  let node = 0;
  let depth = 0;
  let allOnes = true;
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >> bit) & 1;
      const next = HUFFMAN_TRIE[2 * node + one]!;
      if (next < 0) {
        const symbol = -1 - next;
        if (symbol === EOS) throw new HpackError('Huffman string contains EOS');
        out.push(symbol);
        node = depth = 0;
        allOnes = true;
      } else if (next === 0) {
        throw new HpackError('invalid Huffman code');
      } else {
        node = next;
        depth++;
        allOnes &&= one === 1;
      }
    }
  }
  // Padding: at most 7 bits, all ones (the start of EOS).
  if (depth > 7 || !allOnes) throw new HpackError('invalid Huffman padding');
  return Buffer.from(out).toString('latin1');
}

/** A header field as decoded: names are lower-case by HTTP/2's rules (checked by the connection). */
export type HeaderField = readonly [name: string, value: string];

/** Per-connection decoder: the dynamic table lives as long as the connection. */
export class HpackDecoder {
  readonly #table: HeaderField[] = [];
  #size = 0;
  #maxSize: number;

  /** `maxTableSize`: what svcd's SETTINGS_HEADER_TABLE_SIZE allows the peer (4,096 by default). */
  constructor(private readonly maxTableSize = 4096) {
    this.#maxSize = maxTableSize;
  }

  /** Decodes one complete header block; throws HpackError on any malformed input (a connection error). */
  decode(block: Buffer): HeaderField[] {
    const fields: HeaderField[] = [];
    const cursor = { at: 0 };
    while (cursor.at < block.length) {
      const first = block[cursor.at]!;
      if (first & 0x80) {
        fields.push(this.#entry(integer(block, cursor, 7)));
      } else if (first & 0x40) {
        const field = this.#literal(block, cursor, 6);
        this.#insert(field);
        fields.push(field);
      } else if (first & 0x20) {
        const size = integer(block, cursor, 5);
        if (size > this.maxTableSize) throw new HpackError(`dynamic table size ${size} over the ${this.maxTableSize} allowed`);
        this.#maxSize = size;
        this.#evict(0);
      } else {
        // Literal without indexing (0000) or never indexed (0001): same shape.
        fields.push(this.#literal(block, cursor, 4));
      }
    }
    return fields;
  }

  #entry(index: number): HeaderField {
    if (index === 0) throw new HpackError('header index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const field = this.#table[index - STATIC_TABLE.length - 1];
    if (!field) throw new HpackError(`header index ${index} beyond the tables`);
    return field;
  }

  #literal(block: Buffer, cursor: { at: number }, prefixBits: number): HeaderField {
    const index = integer(block, cursor, prefixBits);
    const name = index === 0 ? text(block, cursor) : this.#entry(index)[0];
    return [name, text(block, cursor)];
  }

  #insert(field: HeaderField): void {
    const size = field[0].length + field[1].length + 32;
    this.#evict(size);
    if (size > this.#maxSize) return; // an entry larger than the table empties it (RFC 7541 §4.4)
    this.#table.unshift(field);
    this.#size += size;
  }

  #evict(room: number): void {
    while (this.#table.length > 0 && this.#size + room > this.#maxSize) {
      const last = this.#table.pop()!;
      this.#size -= last[0].length + last[1].length + 32;
    }
  }
}

function integer(block: Buffer, cursor: { at: number }, prefixBits: number): number {
  if (cursor.at >= block.length) throw new HpackError('header block ends inside an integer');
  const max = (1 << prefixBits) - 1;
  let value = block[cursor.at++]! & max;
  if (value < max) return value;
  for (let shift = 0; ; shift += 7) {
    if (cursor.at >= block.length) throw new HpackError('header block ends inside an integer');
    if (shift > 28) throw new HpackError('integer too large');
    const byte = block[cursor.at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return value;
  }
}

function text(block: Buffer, cursor: { at: number }): string {
  if (cursor.at >= block.length) throw new HpackError('header block ends before a string');
  const huffman = (block[cursor.at]! & 0x80) !== 0;
  const length = integer(block, cursor, 7);
  if (cursor.at + length > block.length) throw new HpackError('string longer than the header block');
  const bytes = block.subarray(cursor.at, cursor.at + length);
  cursor.at += length;
  return huffman ? huffmanDecode(bytes) : bytes.toString('latin1');
}

function appendInteger(out: number[], value: number, prefixBits: number, flags: number): void {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(flags | value);
    return;
  }
  out.push(flags | max);
  let rest = value - max;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

function appendText(out: number[], value: string): void {
  const bytes = Buffer.from(value, 'latin1');
  appendInteger(out, bytes.length, 7, 0);
  for (const b of bytes) out.push(b);
}

/** A literal field's name part: its static-table index where it has one, else the name itself. */
function appendName(out: number[], name: string): void {
  const index = STATIC_TABLE.findIndex(([n]) => n === name) + 1;
  appendInteger(out, index, 4, 0x00);
  if (index === 0) appendText(out, name);
}

/**
 * A header block of literal fields without indexing (the decoder's table is never touched, so blocks can be made
 * once and reused), each name by its static-table index where it has one.
 */
export function encodeHeaders(fields: readonly HeaderField[]): Buffer {
  const out: number[] = [];
  for (const [name, value] of fields) {
    appendName(out, name);
    appendText(out, value);
  }
  return Buffer.from(out);
}

/** Encodes one field whose name is fixed and whose value changes per use: the name part is made once. */
export function literalEncoder(name: string): (value: string) => Buffer {
  const namePart: number[] = [];
  appendName(namePart, name);
  return (value) => {
    const out = namePart.slice();
    appendText(out, value);
    return Buffer.from(out);
  };
}
