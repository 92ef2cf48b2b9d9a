/**
 * `.proto` files parsed once at build instead of at every start: tokenizing and parsing the runtime API and
 * Durable Task text was the largest part of svcd's start-up after its module loading. The build
 * (runtime/scripts/bundle.mjs, through writeParsedRoots) writes, for each `.proto`, protobufjs's JSON of the root
 * it parses to, with a hash of every file read on the way; loadProtoRoot rebuilds the root from that JSON when the
 * files are still those, and parses the text otherwise (no build run, or a `.proto` edited since): never stale,
 * only slower.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { LOADER_OPTIONS, PROTO_ROOT } from './proto-root.js';

/** Where `.proto` files are, and where their parsed roots go (`<file>.json` for each): this package's, but for tests. */
export interface ProtoFolders {
  readonly sources: string;
  readonly parsed: string;
}

const PACKAGE_FOLDERS: ProtoFolders = { sources: PROTO_ROOT, parsed: path.join(PROTO_ROOT, 'dist', 'parsed') };

/** What the build writes per file: the parsed root, and the hash of each file read (relative to the sources, `/`). */
interface ParsedRoot {
  readonly sources: Record<string, string>;
  readonly root: protobuf.INamespace;
}

const hashOf = (folders: ProtoFolders, file: string): string | undefined => {
  const full = path.join(folders.sources, file);
  return existsSync(full) ? createHash('sha256').update(readFileSync(full)).digest('hex') : undefined;
};

const relative = (folders: ProtoFolders, file: string): string => (path.isAbsolute(file) ? path.relative(folders.sources, file) : file).split(path.sep).join('/');

/** The files parsed as proto-loader parses them (the same case of names, imports found in the sources), and the files read. */
function parseProtoFiles(folders: ProtoFolders, files: readonly string[]): { root: protobuf.Root; read: string[] } {
  const root = new protobuf.Root();
  const read = new Set<string>();
  root.resolvePath = (_origin, target) => {
    const full = path.isAbsolute(target) ? target : path.join(folders.sources, target);
    // protobufjs serves google/protobuf's well-known types from its own copy; those are no files of ours.
    if (existsSync(full)) read.add(relative(folders, full));
    return full;
  };
  root.loadSync([...files], { keepCase: LOADER_OPTIONS.keepCase });
  root.resolveAll();
  return { root, read: [...read] };
}

/** The build's parse of `files`: the JSON of one of them parsed with all the others as its imports, if none has changed since. */
function currentParse(folders: ProtoFolders, files: readonly string[]): ParsedRoot | undefined {
  const wanted = files.map((f) => relative(folders, f));
  for (const candidate of [...wanted].reverse()) {
    const file = path.join(folders.parsed, `${candidate}.json`);
    if (!existsSync(file)) continue;
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as ParsedRoot;
    if (!wanted.every((w) => w in parsed.sources)) continue;
    return Object.entries(parsed.sources).every(([source, hash]) => hashOf(folders, source) === hash) ? parsed : undefined;
  }
  return undefined;
}

function parsedAtBuild(folders: ProtoFolders, files: readonly string[]): protobuf.Root | undefined {
  const parsed = currentParse(folders, files);
  if (parsed === undefined) return undefined;
  const root = protobuf.Root.fromJSON(parsed.root);
  root.resolveAll();
  return root;
}

/** A method of a service as the build's parse describes it. */
export interface ParsedMethod {
  readonly name: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

/**
 * The methods of `serviceName` (fully qualified) from the build's parse of `files`, read without building the
 * root (its types are resolved when first needed); undefined when there is no current parse.
 */
export function parsedServiceMethods(files: readonly string[], serviceName: string, folders: ProtoFolders = PACKAGE_FOLDERS): ParsedMethod[] | undefined {
  const parsed = currentParse(folders, files);
  let at: protobuf.INamespace | undefined = parsed?.root;
  for (const part of serviceName.split('.')) at = at?.nested?.[part];
  const methods = (at as protobuf.IService | undefined)?.methods;
  if (methods === undefined) return undefined;
  return Object.entries(methods).map(([name, m]) => ({ name, requestStream: m.requestStream === true, responseStream: m.responseStream === true }));
}

/** The root of `files` (relative to the sources, or absolute), resolved: from the build's parse when it is current, else parsed now. */
export function loadProtoRoot(files: readonly string[], folders: ProtoFolders = PACKAGE_FOLDERS): protobuf.Root {
  return parsedAtBuild(folders, files) ?? parseProtoFiles(folders, files).root;
}

function protoFilesUnder(folders: ProtoFolders, dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return ['node_modules', 'src', 'dist', 'scripts', 'test'].includes(e.name) ? [] : protoFilesUnder(folders, full);
    return e.name.endsWith('.proto') ? [relative(folders, full)] : [];
  });
}

/** The build's step: each `.proto` of the sources parsed, written as `<parsed>/<file>.json`. Returns the files. */
export function writeParsedRoots(folders: ProtoFolders = PACKAGE_FOLDERS): string[] {
  const files = protoFilesUnder(folders, folders.sources);
  for (const file of files) {
    const { root, read } = parseProtoFiles(folders, [file]);
    const sources = Object.fromEntries(read.map((source) => [source, hashOf(folders, source)!]));
    const out = path.join(folders.parsed, `${file}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify({ sources, root: root.toJSON() } satisfies ParsedRoot));
  }
  return files;
}
