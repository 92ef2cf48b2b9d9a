/**
 * better-sqlite3 databases, opened with the native addon named. Without `nativeBinding` better-sqlite3 asks the
 * `bindings` package, which probes a dozen paths and builds an Error to read the caller's folder from its stack:
 * about 7 ms of svcd's start-up, and from svcd's bundle (which holds better-sqlite3's JavaScript) the caller's
 * folder is the bundle's, where no addon is. npm's install, prebuilt or compiled, puts the addon in build/Release;
 * were it elsewhere, `bindings` is asked to find it from better-sqlite3's own folder.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** What better-sqlite3's `nativeBinding` option takes: the addon's file, or the addon itself. */
type NativeBinding = string | object;

let addon: NativeBinding | undefined;

function nativeBinding(): NativeBinding {
  if (addon === undefined) {
    const packageFile = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
    const file = path.join(path.dirname(packageFile), 'build', 'Release', 'better_sqlite3.node');
    addon = existsSync(file) ? file : (createRequire(packageFile)('bindings') as (o: object) => object)({ bindings: 'better_sqlite3.node', module_root: path.dirname(packageFile) });
  }
  return addon;
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
  return new Database(file, { ...options, nativeBinding: nativeBinding() as Database.Options['nativeBinding'] });
}
