#!/usr/bin/env node
// Generates TypeScript types for every .proto under proto/ into proto/src/gen (not committed), with the same
// options the runtime loader uses, so the loaded definitions and the types can never disagree.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outDir = path.join(root, 'src', 'gen');

function protoFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return ['node_modules', 'src', 'dist', 'scripts'].includes(e.name) ? [] : protoFiles(full);
    return e.name.endsWith('.proto') ? [path.relative(root, full)] : [];
  });
}

const files = protoFiles(root);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
if (files.length === 0) process.exit(0);
const bin = path.join(root, '..', 'node_modules', '@grpc', 'proto-loader', 'build', 'bin', 'proto-loader-gen-types.js');
const res = spawnSync(process.execPath, [
  bin, '--grpcLib=@grpc/grpc-js', `--outDir=${outDir}`, `--includeDirs=${root}`,
  '--longs=String', '--enums=String', '--defaults', '--oneofs', '--bytes=Buffer', '--keepCase=false',
  '--importFileExtension=.js',
  ...files,
], { cwd: root, stdio: 'inherit' });
process.exit(res.status ?? 1);
