import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';

const YAML_FILE = /\.ya?ml$/i;

/** One YAML document of a resources path and where it came from, for error messages. */
export interface ResourceDocument {
  readonly doc: unknown;
  /** `file /r/file.yaml`, or `file /r/file.yaml (document 2)` when the file holds several. */
  readonly source: string;
}

/**
 * Every document of every `.yaml`/`.yml` file (multi-document) in each folder, not recursively, in file-name
 * order; empty documents are left out. Components and Resiliency resources are read from the same paths.
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
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) continue;
      if (!YAML_FILE.test(entry.name)) {
        log.warn({ file }, 'skipping a file that is not YAML in the resources path');
        continue;
      }
      documents.push(...resourceDocuments(file, await fs.readFile(file, 'utf8')));
    }
  }
  return documents;
}

/** The documents of one file's text; YAML that does not parse fails naming the file. */
export function resourceDocuments(file: string, text: string): ResourceDocument[] {
  let docs: unknown[];
  try {
    docs = yaml.loadAll(text);
  } catch (err) {
    throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `${file}: invalid YAML: ${(err as Error).message}`, { cause: err });
  }
  return docs.flatMap((doc, i) =>
    doc === null || doc === undefined ? [] : [{ doc, source: docs.length > 1 ? `file ${file} (document ${i + 1})` : `file ${file}` }],
  );
}
