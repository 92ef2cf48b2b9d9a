/**
 * `svc`, the command-line tool: `svc run` (svcd and an app together), `svc workflow …` (see and steer workflows
 * of a running svcd), `svc init` (the embedded default resources). Exit codes: 0 done, 1 failed, 2 misused.
 */
import { RUNTIME_VERSION } from '../version.js';
import { initCommand } from './init-command.js';
import { runCommand } from './run-command.js';
import { CliError } from './svcd-client.js';
import { UsageError } from './usage-error.js';
import { runWorkflowCommand } from './workflow-commands.js';

const USAGE = `Usage: svc <command> [options]

Commands:
  run       svcd (embedded SQLite store, workflows ready) and your app together: svc run --app-id myapp -- node app.js
  workflow  list, get, history, start, raise, pause, resume, terminate, purge, rerun workflow instances
  init      write the embedded default resources folder (.svc/resources)
  version   print svc's version

svc <command> --help tells more. The web UI of a running svcd is at http://127.0.0.1:3500/ui/.
`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return runCommand(rest);
    case 'workflow':
    case 'workflows':
    case 'wf':
      await runWorkflowCommand(rest);
      return 0;
    case 'init':
      initCommand(rest);
      return 0;
    case 'version':
    case '--version':
      process.stdout.write(`svc ${RUNTIME_VERSION}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      throw new UsageError(`unknown command '${command}'\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`svc: ${err.message}\n`);
      process.exitCode = 2;
    } else if (err instanceof CliError) {
      process.stderr.write(`svc: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`svc: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
