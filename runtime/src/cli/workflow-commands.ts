/**
 * `svc workflow <command>`: list, get, history, start, raise, pause, resume, terminate, purge, rerun, against a
 * running svcd's HTTP API.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { WorkflowInstanceView } from '../workflow/instance-view.js';
import type { HistoryEventView, HistoryPageView } from '../workflow/history-view.js';
import type { InstanceListView, InstanceSummaryView } from '../workflow/management-api.js';
import { eventRow, local } from './event-line.js';
import { followInstance } from './follow-instance.js';
import { printFacts, printJson, printTable, type OutputFormat } from './output.js';
import { SvcdClient } from './svcd-client.js';
import { UsageError } from './usage-error.js';

const BASE = '/v1.0/workflows/svc';
const DEFAULT_HTTP_PORT = 3500;

const COMMON = {
  'http-port': { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

interface Command {
  readonly usage: string;
  readonly summary: string;
  readonly options?: ParseArgsConfig['options'];
  /** Names of the positional arguments, all required. */
  readonly args: readonly string[];
  run(c: Context): Promise<void>;
}

interface Context {
  readonly client: SvcdClient;
  readonly output: OutputFormat;
  readonly args: readonly string[];
  readonly values: Record<string, string | boolean | string[] | undefined>;
}

const id = (instanceId: string) => `${BASE}/${encodeURIComponent(instanceId)}`;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const one = (c: Context, name: string) => str(c.values[name]);

/** A 202 command: prints what it did (or `{}` as JSON). */
function accepted(c: Context, message: string): void {
  if (c.output === 'json') printJson({});
  else process.stdout.write(`${message}\n`);
}

const instanceCommand = (op: 'pause' | 'resume' | 'terminate' | 'purge', summary: string, done: string): Command => ({
  usage: `svc workflow ${op} <instance-id>`,
  summary,
  args: ['instance-id'],
  async run(c) {
    await c.client.call('POST', `${id(c.args[0]!)}/${op}`);
    accepted(c, `${c.args[0]!}: ${done}`);
  },
});

function listQuery(c: Context, token: string | undefined): string {
  const q = new URLSearchParams();
  const statuses = c.values.status;
  for (const s of Array.isArray(statuses) ? statuses : []) q.append('status', s);
  for (const [flag, param] of [['name', 'name'], ['prefix', 'instanceIDPrefix'], ['created-from', 'createdFrom'], ['created-to', 'createdTo'], ['page-size', 'pageSize']] as const) {
    const v = one(c, flag);
    if (v !== undefined) q.set(param, v);
  }
  if (token !== undefined) q.set('continuationToken', token);
  return q.toString();
}

export const WORKFLOW_COMMANDS: Record<string, Command> = {
  list: {
    usage: 'svc workflow list [--status S]... [--name N] [--prefix P] [--created-from T] [--created-to T] [--page-size N] [--continuation-token T] [--all]',
    summary: 'Instances, newest update first, a page at a time (--all: every page)',
    options: {
      status: { type: 'string', multiple: true },
      name: { type: 'string' },
      prefix: { type: 'string' },
      'created-from': { type: 'string' },
      'created-to': { type: 'string' },
      'page-size': { type: 'string' },
      'continuation-token': { type: 'string' },
      all: { type: 'boolean' },
    },
    args: [],
    async run(c) {
      const instances: InstanceSummaryView[] = [];
      let token = one(c, 'continuation-token');
      do {
        const page = await c.client.call<InstanceListView>('GET', `${BASE}?${listQuery(c, token)}`);
        instances.push(...page.instances);
        token = page.continuationToken ?? undefined;
      } while (c.values.all === true && token !== undefined);
      if (c.output === 'json') return printJson({ instances, continuationToken: token ?? null });
      printTable(
        ['INSTANCE ID', 'WORKFLOW', 'STATUS', 'CREATED', 'LAST UPDATE', 'PARENT'],
        instances.map((i) => [i.instanceID, i.workflowName, i.runtimeStatus, local(i.createdAt), local(i.lastUpdatedAt), i.parentInstanceID ?? '']),
      );
      if (instances.length === 0) process.stdout.write(token !== undefined ? 'none in this part of the list\n' : 'no workflow instances match\n');
      if (token !== undefined) process.stderr.write(`more: svc workflow list --continuation-token ${token} (same filters), or --all\n`);
    },
  },
  get: {
    usage: 'svc workflow get <instance-id> [--follow]',
    summary: 'Status, input, output, custom status and failure of one instance (--follow: then its history events as they happen, until it ends)',
    options: { follow: { type: 'boolean', short: 'f' } },
    args: ['instance-id'],
    async run(c) {
      const i = await c.client.call<WorkflowInstanceView>('GET', id(c.args[0]!));
      if (c.values.follow !== true) return printInstance(c, i);
      // Following, JSON is one document per line: the instance, each event as it is written, the ended instance.
      const json = c.output === 'json';
      const line = (text: string) => process.stdout.write(`${text}\n`);
      if (json) {
        line(JSON.stringify(i));
      } else {
        printInstance(c, i);
        line('\nHistory (following until the instance ends; Ctrl-C stops):');
      }
      const ended = await followInstance(c.client, id(c.args[0]!), i, (e) => line(json ? JSON.stringify(e) : eventRow(e).join('  ')));
      if (json) {
        line(JSON.stringify(ended));
      } else {
        line('');
        printInstance(c, ended);
      }
    },
  },
  history: {
    usage: 'svc workflow history <instance-id> [--full]',
    summary: 'The history events of an instance, in order (--full: payloads whole)',
    options: { full: { type: 'boolean' } },
    args: ['instance-id'],
    async run(c) {
      const events: HistoryEventView[] = [];
      let token: string | null = null;
      do {
        const q = new URLSearchParams({ pageSize: '5000' });
        if (c.values.full === true) q.set('payloads', 'full');
        if (token !== null) q.set('continuationToken', token);
        const page: HistoryPageView = await c.client.call('GET', `${id(c.args[0]!)}/history?${q.toString()}`);
        events.push(...page.events);
        token = page.continuationToken;
      } while (token !== null);
      if (c.output === 'json') return printJson(events);
      printTable(
        ['#', 'TIME', 'EVENT', 'ID', 'DETAILS'],
        events.map(eventRow),
        c.values.full === true ? Infinity : 80,
      );
    },
  },
  start: {
    usage: 'svc workflow start <workflow-name> [--id ID] [--input JSON]',
    summary: 'Starts an instance; prints its ID',
    options: { id: { type: 'string' }, input: { type: 'string' } },
    args: ['workflow-name'],
    async run(c) {
      const instanceId = one(c, 'id');
      const q = instanceId !== undefined ? `?instanceID=${encodeURIComponent(instanceId)}` : '';
      const res = await c.client.call<{ instanceID: string }>('POST', `${BASE}/${encodeURIComponent(c.args[0]!)}/start${q}`, one(c, 'input'));
      if (c.output === 'json') return printJson(res);
      process.stdout.write(`${res.instanceID}\n`);
    },
  },
  raise: {
    usage: 'svc workflow raise <instance-id> <event-name> [--data JSON]',
    summary: 'Delivers an external event',
    options: { data: { type: 'string' } },
    args: ['instance-id', 'event-name'],
    async run(c) {
      await c.client.call('POST', `${id(c.args[0]!)}/raiseEvent/${encodeURIComponent(c.args[1]!)}`, one(c, 'data'));
      accepted(c, `${c.args[0]!}: event ${c.args[1]!} raised`);
    },
  },
  pause: instanceCommand('pause', 'Suspends an instance (events raised meanwhile are kept)', 'paused'),
  resume: instanceCommand('resume', 'Resumes a paused instance', 'resumed'),
  terminate: instanceCommand('terminate', 'Terminates an instance and its running sub-workflows', 'terminated'),
  purge: instanceCommand('purge', 'Deletes a finished instance (and its sub-workflows) for good', 'purged'),
  rerun: {
    usage: 'svc workflow rerun <instance-id> <event-id> [--new-id ID] [--input JSON]',
    summary: 'A new instance from a finished one, run again from an activity or sub-workflow (event ids: `history`)',
    options: { 'new-id': { type: 'string' }, input: { type: 'string' } },
    args: ['instance-id', 'event-id'],
    async run(c) {
      const newId = one(c, 'new-id');
      const q = newId !== undefined ? `?newInstanceID=${encodeURIComponent(newId)}` : '';
      const res = await c.client.call<{ instanceID: string }>('POST', `${id(c.args[0]!)}/rerun/${encodeURIComponent(c.args[1]!)}${q}`, one(c, 'input'));
      if (c.output === 'json') return printJson(res);
      process.stdout.write(`${res.instanceID}\n`);
    },
  },
};

/** `svc workflow get`'s answer: the instance's facts, or its view as JSON. */
function printInstance(c: Context, i: WorkflowInstanceView): void {
  if (c.output === 'json') return printJson(i);
  const p = (k: string) => i.properties[`svc.workflow.${k}`];
  printFacts([
    ['Instance ID', i.instanceID],
    ['Workflow', i.workflowName],
    ['Status', i.runtimeStatus],
    ['Created', local(i.createdAt)],
    ['Last update', local(i.lastUpdatedAt)],
    ['Custom status', p('custom_status')],
    ['Input', p('input')],
    ['Output', p('output')],
    ['Failure', p('failure.error_type') !== undefined ? `${p('failure.error_type')!}: ${p('failure.error_message') ?? ''}` : undefined],
    ['Stack trace', p('failure.stack_trace')],
  ]);
}

export function workflowUsage(): string {
  const rows = Object.values(WORKFLOW_COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return `Usage: svc workflow <command> [options]\n\n${rows.join('\n')}\n\nEvery command: --http-port N (svcd's HTTP port; env SVC_HTTP_PORT, default ${DEFAULT_HTTP_PORT}), --output table|json (-o). The API token comes from SVC_API_TOKEN.\n`;
}

export async function runWorkflowCommand(argv: readonly string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(workflowUsage());
    return;
  }
  const command = WORKFLOW_COMMANDS[name];
  if (!command) throw new UsageError(`unknown workflow command '${name}'\n\n${workflowUsage()}`);
  let parsed;
  try {
    parsed = parseArgs({ args: [...rest], options: { ...COMMON, ...command.options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${command.usage}`);
  }
  if (parsed.values.help === true) {
    process.stdout.write(`usage: ${command.usage}\n${command.summary}\n`);
    return;
  }
  if (parsed.positionals.length !== command.args.length) {
    throw new UsageError(`svc workflow ${name} takes ${command.args.length === 0 ? 'no arguments' : command.args.map((a) => `<${a}>`).join(' ')}\nusage: ${command.usage}`);
  }
  const output = str(parsed.values.output) ?? 'table';
  if (output !== 'table' && output !== 'json') throw new UsageError(`--output must be table or json (got '${output}')`);
  await command.run({ client: new SvcdClient(httpPort(str(parsed.values['http-port']))), output, args: parsed.positionals, values: parsed.values });
}

/** `--http-port`, else SVC_HTTP_PORT, else 3500. */
export function httpPort(flag: string | undefined): number {
  const text = flag ?? process.env.SVC_HTTP_PORT ?? String(DEFAULT_HTTP_PORT);
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new UsageError(`--http-port must be a port number (got '${text}')`);
  return port;
}
