/**
 * better-sqlite3 databases, opened with the native addon's file named. Without `nativeBinding` better-sqlite3
 * asks the `bindings` package, which probes a dozen paths and builds an Error to read the caller's folder from
 * its stack: about 7 ms of svcd's start-up. npm's install, prebuilt or compiled, puts the addon in
 * build/Release; were it elsewhere, better-sqlite3 finds it its own way.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

let addonFile: string | null | undefined;

function nativeBinding(): string | undefined {
  if (addonFile === undefined) {
    const packageRoot = path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
    const file = path.join(packageRoot, 'build', 'Release', 'better_sqlite3.node');
    addonFile = existsSync(file) ? file : null;
  }
  return addonFile ?? undefined;
}

/**
 * The database file a SQLite component's metadata names: `databasePath` (or `connectionString`, a path, `file:`
 * allowed), relative to svcd's data folder; by default `<component name>.db` there; `:memory:` as it is.
 */
export function databasePathFromMetadata(get: (name: string) => string | undefined, ctx: { componentName: string; dataDir: string }): string {
  const file = get('databasePath') || get('connectionString') || `${ctx.componentName}.db`;
  return file === ':memory:' ? file : path.resolve(ctx.dataDir, file.replace(/^file:/, ''));
}

export function openDatabase(file: string, options: Database.Options = {}): Database.Database {
  const binding = nativeBinding();
  return new Database(file, binding === undefined ? options : { ...options, nativeBinding: binding });
}
