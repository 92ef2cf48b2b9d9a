import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { secretMatches } from '../../src/config/api-token.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('secretMatches (the one token comparison)', () => {
  it('matches only the same secret: not a prefix, a longer one, another of the same length, or none', () => {
    expect(secretMatches('s3cret-tøken', 's3cret-tøken')).to.equal(true);
    expect(secretMatches('s3cret-tøken', 's3cret-tøke')).to.equal(false);
    expect(secretMatches('s3cret-tøken', 's3cret-tøkenn')).to.equal(false);
    expect(secretMatches('s3cret-tøken', 's3cret-tøkeN')).to.equal(false);
    // Same number of characters, different bytes: compared as bytes, never thrown on.
    expect(secretMatches('s3cret-tøken', 's3cret-token')).to.equal(false);
    expect(secretMatches('s3cret-tøken', undefined)).to.equal(false);
    expect(secretMatches('s3cret-tøken', '')).to.equal(false);
  });

  it('is the only place svcd compares a secret (every listener goes through it)', () => {
    const comparing = sources(SRC).filter((file) => /timingSafeEqual|=== *(apiToken|token|expected)\b/.test(readFileSync(file, 'utf8')));
    expect(comparing.map((f) => path.relative(SRC, f))).to.deep.equal(['config/api-token.ts']);
  });
});
