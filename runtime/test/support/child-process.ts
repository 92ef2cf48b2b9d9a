import type { ChildProcess } from 'node:child_process';

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * A child process a test drives (svcd, a pluggable component, an SDK worker): its stdout and stderr kept in
 * `output` for assertions and failure reports, its exit as a promise, and stop/kill that wait for the exit.
 */
export class TestChildProcess {
  output = '';
  /** stderr alone, for what a process must say there (not in its logs). */
  errorOutput = '';
  readonly exited: Promise<ExitStatus>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => {
      this.output += d.toString();
      this.errorOutput += d.toString();
    });
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Graceful stop (SIGTERM) and wait; `exited` tells how it ended. */
  stop(): Promise<void> {
    return this.signal('SIGTERM');
  }

  /** Crash (SIGKILL) and wait: files the process leaves behind (sockets, data) stay, as after a real crash. */
  kill(): Promise<void> {
    return this.signal('SIGKILL');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}
