/**
 * The one reader of resource files: every YAML document of every `.yaml`/`.yml` file in the resources paths, each
 * with the source its errors name. What a document is (a Component, a Configuration…) is for its own parser.
 */
import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import type { ErrorCode } from '../errors/codes.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { byName } from '../util/by-name.js';

const YAML_FILE = /\.ya?ml$/i;

/** One document of a resource file; `source` is `file /r/a.yaml`, or `file /r/a.yaml (document 2)` when it has several. */
export interface ResourceDocument {
  readonly doc: unknown;
  readonly source: string;
}

/** The non-empty documents of one YAML text; `invalid` is the code of the error when it is not YAML. */
export function parseResourceDocuments(file: string, text: string, invalid: ErrorCode): ResourceDocument[] {
  let docs: unknown[];
  try {
    docs = yaml.loadAll(text);
  } catch (err) {
    throw new RuntimeError(invalid, `${file}: invalid YAML: ${(err as Error).message}`, { cause: err });
  }
  return docs.flatMap((doc, i) =>
    doc === null || doc === undefined ? [] : [{ doc, source: docs.length > 1 ? `file ${file} (document ${i + 1})` : `file ${file}` }],
  );
}

/**
 * Every document of every YAML file in each folder, not recursively, in file name order (byName). Invalid YAML
 * fails as ERR_COMPONENT_SPEC_INVALID, the code it always had: components are what the resources paths are mostly for.
 */
export async function readResourceDocuments(folders: readonly string[], log: Logger): Promise<ResourceDocument[]> {
  const documents: ResourceDocument[] = [];
  for (const folder of folders) {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (err) {
      throw new RuntimeError('ERR_CONFIG_INVALID', `cannot read resources path ${folder}: ${(err as Error).message}`, { cause: err });
    }
    entries.sort(byName);
    for (const entry of entries) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) continue;
      if (!YAML_FILE.test(entry.name)) {
        log.warn({ file }, 'skipping a file that is not YAML in the resources path');
        continue;
      }
      documents.push(...parseResourceDocuments(file, await fs.readFile(file, 'utf8'), 'ERR_COMPONENT_SPEC_INVALID'));
    }
  }
  return documents;
}
