/**
 * svcd's bundle (runtime/scripts/bundle.mjs): one CommonJS script, compiled here with the V8 code cache that the
 * build made from a start of svcd. Compiling the bundle was the largest part of svcd's start-up, and Node 20 keeps
 * no code cache for ES modules; a script can be given one. V8 refuses a cache made by another Node version or with
 * other V8 flags (a `--max-old-space-size`, say), and the bundle is then compiled as usual: slower, never wrong.
 * CommonJS, as is bin/svcd.js that requires it: an ES module launcher made Node set up its ES module loader at every
 * start (resolving, reading package scopes), about 5% of svcd's CPU to healthy, for a script that needs none of it.
 */
import { isAscii } from 'node:buffer';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

const BUNDLE_DIR = path.resolve(__dirname, '..', '..', 'bundle');

/** The bundle, and the code cache the build wrote beside it. */
export const SVCD_BUNDLE_FILE = path.join(BUNDLE_DIR, 'svcd.cjs');
export const SVCD_CODE_CACHE_FILE = path.join(BUNDLE_DIR, 'svcd.cjs.code-cache');

/** What V8 made of the code cache. */
export type CodeCacheUse = 'accepted' | 'rejected' | 'none';

export interface CompiledBundle {
  readonly script: vm.Script;
  readonly codeCache: CodeCacheUse;
}

/** Compiles the bundle, with the code cache unless `withCache` is false (the build, making the cache). */
export function compileSvcdBundle(withCache = true): CompiledBundle {
  const cachedData = withCache && existsSync(SVCD_CODE_CACHE_FILE) ? readFileSync(SVCD_CODE_CACHE_FILE) : undefined;
  // The source is read here and not kept: V8 holds the script's source for as long as svcd runs, a second copy
  // would only cost memory. The bundle is ASCII (esbuild escapes the rest): read as Latin-1, the same string in a
  // copy, where decoding UTF-8 took a few ms; a bundle that is not ASCII after all is decoded as UTF-8.
  const bytes = readFileSync(SVCD_BUNDLE_FILE);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  // The entry's `#!` line is no statement inside a function: made a comment, the lines keep their numbers.
  const body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${body}\n})`, {
    filename: SVCD_BUNDLE_FILE,
    cachedData,
    // A dynamic import() left in the bundle loads as it would in any module of svcd.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  return { script, codeCache: cachedData === undefined ? 'none' : script.cachedDataRejected === true ? 'rejected' : 'accepted' };
}

/** Runs svcd: the bundle's top level, as Node would run a CommonJS main module. */
export function runSvcdBundle(bundle: CompiledBundle): void {
  const module = { exports: {} };
  const main = bundle.script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  main(module.exports, createRequire(SVCD_BUNDLE_FILE), module, SVCD_BUNDLE_FILE, BUNDLE_DIR);
}
