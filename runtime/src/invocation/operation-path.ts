/**
 * The invoked method's path as access control sees it, and the operation patterns it is compared with. Both go
 * through one normalisation, so no spelling of a path (`/a/../admin`, `//admin/`, `/%61dmin?x`) slips past a rule
 * written for `/admin`.
 */

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * One leading slash; no query string or fragment; percent-escapes of unreserved characters decoded (others kept,
 * upper-cased: `%2F` stays one segment, as the app's router sees it); empty and `.` segments dropped; `..` resolved,
 * never above the root.
 */
export function normalizePath(raw: string): string {
  const end = raw.search(/[?#]/);
  const decoded = (end === -1 ? raw : raw.slice(0, end)).replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : escape.toUpperCase();
  });
  const segments: string[] = [];
  for (const segment of decoded.split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '' && segment !== '.') segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** How specific a pattern segment is; a pattern that has ended ranks between `**` and `*` (see compareSpecificity). */
const GLOBSTAR = 0;
const ENDED = 0.5;
const STAR = 1;
const PARTIAL = 2;
const LITERAL = 3;

export interface PathPattern {
  /** Whether a normalised path matches, without regard to case (as the reference system compares HTTP paths). */
  readonly matches: (path: string) => boolean;
  /** The rank of each segment, left to right. */
  readonly specificity: readonly number[];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `**` is any number of segments (none too), `*` one segment, and a `*` inside a segment any characters but `/`. */
export function compilePattern(name: string): PathPattern {
  const segments = normalizePath(name).split('/').slice(1).filter((s) => s !== '');
  const specificity = segments.map((s) => (s === '**' ? GLOBSTAR : s === '*' ? STAR : s.includes('*') ? PARTIAL : LITERAL));
  const source = segments
    .map((s) => (s === '**' ? '(?:/[^/]+)*' : s === '*' ? '/[^/]+' : `/${s.split('*').map(escapeRegExp).join('[^/]*')}`))
    .join('');
  const regex = new RegExp(`^${source}$`, 'i');
  // The root `/` has no segments: it is matched as the empty string, like a pattern of none.
  return { matches: (path) => regex.test(path === '/' ? '' : path), specificity };
}

/**
 * Positive when `a` is more specific than `b`, comparing segment by segment from the left: a literal beats a
 * partial wildcard, which beats `*`, which beats `**`. When one pattern ends where the other goes on, both matching
 * one path, the other goes on with `**` (the ended one wins: `/a` over `/a/**`) or with more constraints on a `**`'s
 * segments (the other wins: `/a/**` followed by `/x` over a bare `/a/**`).
 */
export function compareSpecificity(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i] ?? ENDED, b[i] ?? ENDED];
    if (x !== y) return x - y;
  }
  return 0;
}
