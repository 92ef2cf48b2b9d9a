/**
 * Serving TLS from files (cert-manager, a mounted Secret, or a test): read at start and re-read when the folder
 * changes, so a rotated certificate is served without a restart. Mounted Secrets swap a symlink, which is why the
 * folder is watched rather than the file.
 */
import { watch, readFileSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { InjectorError } from '../errors.js';
import type { KeyPairPem } from './generate.js';

export function readKeyPair(certFile: string, keyFile: string): KeyPairPem {
  try {
    const pair = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
    if (!new X509Certificate(pair.cert).checkPrivateKey(createPrivateKey(pair.key))) throw new Error('the key does not match the certificate');
    return pair;
  } catch (err) {
    throw new InjectorError('ERR_TLS', `cannot use TLS files ${certFile} / ${keyFile}: ${(err as Error).message}`, { cause: err });
  }
}

export class FileTls {
  private watchers: FSWatcher[] = [];
  private current: KeyPairPem;

  constructor(private readonly certFile: string, private readonly keyFile: string, private readonly log: Logger) {
    this.current = readKeyPair(certFile, keyFile);
  }

  get pair(): KeyPairPem {
    return this.current;
  }

  watch(onRotate: (pair: KeyPairPem) => void): void {
    const folders = [...new Set([path.dirname(this.certFile), path.dirname(this.keyFile)])];
    for (const folder of folders) {
      const watcher = watch(folder, () => {
        let next: KeyPairPem;
        try {
          next = readKeyPair(this.certFile, this.keyFile);
        } catch {
          return; // Mid-rotation (one file written, not the other): the next event brings the pair.
        }
        if (next.cert === this.current.cert && next.key === this.current.key) return;
        this.current = next;
        this.log.info({ certFile: this.certFile }, 'serving certificate reloaded');
        onRotate(next);
      });
      watcher.unref();
      this.watchers.push(watcher);
    }
  }

  stop(): void {
    for (const w of this.watchers) w.close();
  }
}
