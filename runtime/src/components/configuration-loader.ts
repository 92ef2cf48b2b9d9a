/**
 * Standalone mode: which Configuration this sidecar uses. `--config` names a YAML file, or the `metadata.name` of a
 * Configuration document in the resources paths; without it, the one Configuration there, if there is exactly one.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { configurationName, isConfigurationDocument, parseConfiguration, type RuntimeConfiguration } from './configuration-resource.js';
import { parseResourceDocuments, readResourceDocuments, type ResourceDocument } from './resource-files.js';

/**
 * A selector with a path separator or a YAML extension is a file; anything else is a resource name. Decided by the
 * text alone, so a file that happens to exist never changes what a name means.
 */
const FILE_SELECTOR = /[/\\]|\.ya?ml$/i;

function invalid(message: string, cause?: unknown): RuntimeError {
  return new RuntimeError('ERR_CONFIGURATION_INVALID', message, cause === undefined ? {} : { cause });
}

const sources = (documents: readonly ResourceDocument[]): string => documents.map((d) => d.source).join(', ');

async function configurationInFile(selector: string): Promise<ResourceDocument> {
  const file = path.resolve(selector);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw invalid(`cannot read the Configuration file ${file} (--config): ${(err as Error).message}`, err);
  }
  const found = parseResourceDocuments(file, text, 'ERR_CONFIGURATION_INVALID').filter(({ doc }) => isConfigurationDocument(doc));
  if (found.length === 0) throw invalid(`file ${file} (--config) holds no Configuration document (kind: Configuration, apiVersion: svc.io/v1alpha1)`);
  if (found.length > 1) throw invalid(`file ${file} (--config) holds several Configuration documents (${sources(found)}): keep one`);
  return found[0]!;
}

function configurationNamed(selector: string, found: readonly ResourceDocument[], resourcesPaths: readonly string[]): ResourceDocument {
  const named = found.filter(({ doc }) => configurationName(doc) === selector);
  if (named.length > 1) throw invalid(`several Configurations are named '${selector}' (${sources(named)}): keep one`);
  if (named.length === 0) {
    const names = found.map(({ doc }) => configurationName(doc) ?? '(unnamed)');
    const seen = names.length > 0 ? `the Configurations there: ${names.join(', ')}` : 'there are none';
    throw invalid(`no Configuration named '${selector}' (--config) in the resources paths (${resourcesPaths.join(', ') || 'none given'}); ${seen}`);
  }
  return named[0]!;
}

/** The Configuration `selector` names (see the module comment); undefined when none is named and none is found. */
export async function loadStandaloneConfiguration(selector: string | undefined, resourcesPaths: readonly string[], log: Logger): Promise<RuntimeConfiguration | undefined> {
  let chosen: ResourceDocument;
  if (selector !== undefined && FILE_SELECTOR.test(selector)) chosen = await configurationInFile(selector);
  else {
    const found = (await readResourceDocuments(resourcesPaths, log)).filter(({ doc }) => isConfigurationDocument(doc));
    if (selector !== undefined) chosen = configurationNamed(selector, found, resourcesPaths);
    else if (found.length > 1) throw invalid(`the resources paths hold several Configurations (${sources(found)}): choose one with --config <name or file>`);
    else if (found.length === 1) chosen = found[0]!;
    else return undefined;
  }
  const configuration = parseConfiguration(chosen.doc, chosen.source);
  log.info({ configuration: configuration.name, source: configuration.source }, 'configuration loaded');
  return configuration;
}
