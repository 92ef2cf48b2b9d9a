import { readFileSync } from 'node:fs';

/** A process's memory from /proc/<pid>/status, in MiB: `VmRSS` (resident now) or `VmHWM` (its peak so far). */
export function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no ${field} for process ${pid}`);
  return Number(kib) / 1024;
}
