import { expect } from 'chai';
import { actorStore, SvcdProcess, type ActorStore } from '@svc/runtime/test-support';
import { svcdLogLines } from '../support/svcd-log.js';
import { buildGoProgram, runGoProgram, type GoProgramRun, type ScenarioLine } from '../support/go-program.js';

const TOKEN = 'e2e-go-token';
const SCENARIO_TIMEOUT_MS = 20_000;

/**
 * A real Go program on the Dapr Go SDK (github.com/dapr/go-sdk/workflow v1.11.0, on microsoft/durabletask-go
 * v0.5.0) against svcd: e2e/go/workflow-sdk registers its workflows and activities with workflow.NewWorker, runs
 * every scenario at once through workflow.NewClient and prints what each one observed; each `it` checks one.
 */
describe('Dapr Go SDK workflows against svcd (e2e/go/workflow-sdk)', function () {
  this.timeout(60_000);
  let store: ActorStore;
  let svcd: SvcdProcess;
  let program: GoProgramRun;

  before(async function () {
    this.timeout(300_000); // the first build downloads the SDK's modules; later ones only relink, if that
    const binary = await buildGoProgram('workflow-sdk');
    store = actorStore('sqlite', 'wf-go');
    svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, env: { SVC_API_TOKEN: TOKEN } });
    program = await runGoProgram(binary, { grpcPort: svcd.ports.grpc, apiToken: TOKEN, args: ['-scenario-timeout', `${SCENARIO_TIMEOUT_MS}ms`], killAfterMs: SCENARIO_TIMEOUT_MS + 15_000 });
  });

  after(async () => {
    await svcd?.dispose();
    await store?.cleanup();
  });

  /** The scenario's observations; fails with its error, the program's stderr and svcd's warnings if it had one. */
  function observed(scenario: string): Record<string, unknown> {
    const line: ScenarioLine | undefined = program.lines.find((l) => l.scenario === scenario);
    const context = `\n--- Go program (exit ${program.exit}) stderr ---\n${program.stderr}\n--- svcd warnings and errors ---\n${svcdProblems()}`;
    expect(line, `no result line for ${scenario}${context}`).to.not.equal(undefined);
    expect(line!.error, `${scenario}: ${line!.error}${context}`).to.equal(undefined);
    return line!.observed!;
  }

  function svcdProblems(): string {
    return svcdLogLines(svcd.output)
      .filter((l) => l.level !== 'info' && l.level !== 'debug')
      .map((l) => JSON.stringify(l))
      .join('\n');
  }

  it('reports each of its scenarios exactly once', () => {
    expect(program.lines.map((l) => l.scenario).sort()).to.deep.equal([
      'activity-failure-caught',
      'activity-failure-uncaught',
      'activity-sequence',
      'child-hex-id',
      'child-invalid-id',
      'child-with-instance-id',
      'child-without-instance-id',
      'durable-timer',
      'external-event',
      'grpc-invalid-ids',
      'reuse-no-policy-completed',
      'reuse-policy-ignore-running',
      'reuse-policy-refused',
      'reuse-policy-terminate-running',
      'suspend-resume-terminate-purge',
      'suspended-instance-holds-event',
    ]);
  });

  it('activity-sequence: runs activities one after the other, each output feeding the result', () => {
    expect(observed('activity-sequence')).to.deep.equal({
      instance: {
        id: 'go-sequence',
        name: 'Sequence',
        status: 'COMPLETED',
        input: ['Tokyo', 'Seattle', 'London'],
        output: ['Hello, Tokyo!', 'Hello, Seattle!', 'Hello, London!'],
      },
    });
  });

  it('child-without-instance-id: names the child <parent>:0001 (its action id, 4 hex digits) and completes the parent with its output', () => {
    // The parent's action 0 is an activity, action 1 the child started without WithChildWorkflowInstanceID.
    const child = { value: 42, id: 'go-parent-auto:0001' };
    expect(observed('child-without-instance-id')).to.deep.equal({
      parent: { id: 'go-parent-auto', name: 'ParentOfAutoNamedChild', status: 'COMPLETED', output: child },
      child: { id: 'go-parent-auto:0001', name: 'Doubler', status: 'COMPLETED', input: 21, output: child },
    });
  });

  it('child-hex-id: a child started without an ID after eleven activities is <parent>:000b (action 11 in hex)', () => {
    const child = { value: 12, id: 'go-parent-hex:000b' };
    expect(observed('child-hex-id')).to.deep.equal({
      parent: { id: 'go-parent-hex', name: 'ParentOfTwelfthActionChild', status: 'COMPLETED', output: child },
      child: { id: 'go-parent-hex:000b', name: 'Doubler', status: 'COMPLETED', input: 6, output: child },
    });
  });

  it('child-invalid-id: a child asked for under `bad/id` fails the parent\'s child task, which the parent catches', () => {
    const { instance } = observed('child-invalid-id') as { instance: { output: { caught: string } } };
    expect(instance).to.deep.include({ id: 'go-parent-invalid-child', name: 'ParentOfInvalidChild', status: 'COMPLETED' });
    expect(instance.output.caught).to.match(/^task failed with an error: /).and.include("'bad/id'").and.include('invalid');
  });

  it('child-with-instance-id: runs the child under the ID the parent chose', () => {
    const child = { value: 10, id: 'go-parent-named-child' };
    expect(observed('child-with-instance-id')).to.deep.equal({
      parent: { id: 'go-parent-named', name: 'ParentOfNamedChild', status: 'COMPLETED', output: child },
      child: { id: 'go-parent-named-child', name: 'Doubler', status: 'COMPLETED', input: 5, output: child },
    });
  });

  it('external-event: a raised event reaches WaitForExternalEvent with its payload', () => {
    expect(observed('external-event')).to.deep.equal({
      instance: { id: 'go-approval', name: 'AwaitApproval', status: 'COMPLETED', output: { approval: { by: 'alice' } } },
    });
  });

  it('activity-failure-caught: the workflow sees the failed activity\'s error message', () => {
    expect(observed('activity-failure-caught')).to.deep.equal({
      instance: {
        id: 'go-failure-caught',
        name: 'CatchActivityFailure',
        status: 'COMPLETED',
        output: { caught: 'task failed with an error: boom (caught): the activity failed on purpose' }, // the SDK's prefix
      },
    });
  });

  it('activity-failure-uncaught: the workflow fails with the activity\'s error', async () => {
    expect(observed('activity-failure-uncaught')).to.deep.equal({
      instance: { id: 'go-failure-uncaught', name: 'LetActivityFailure', status: 'FAILED' },
    });
    // The Go SDK's metadata leaves the failure details out; svcd's HTTP API shows what the worker reported.
    const res = await svcd.request('GET', '/v1.0/workflows/svc/go-failure-uncaught', undefined, { 'dapr-api-token': TOKEN });
    const body = (await res.json()) as { properties: Record<string, string> };
    expect(body.properties['svc.workflow.failure.error_message']).to.equal('task failed with an error: boom (uncaught): the activity failed on purpose');
  });

  it('suspend-resume-terminate-purge: the Go client suspends, resumes, terminates with an output and purges', () => {
    expect(observed('suspend-resume-terminate-purge')).to.deep.equal({
      statusAfterSuspend: 'SUSPENDED',
      statusAfterResume: 'RUNNING',
      terminated: { id: 'go-lifecycle', name: 'AwaitForever', status: 'TERMINATED', output: 'stopped by the go client' },
      fetchAfterPurge: 'not found',
      secondPurge: 'not found',
    });
  });

  it('suspended-instance-holds-event: an event raised while suspended is delivered after the resume', () => {
    expect(observed('suspended-instance-holds-event')).to.deep.equal({
      statusWhileSuspended: 'SUSPENDED',
      instance: { id: 'go-suspended-event', name: 'AwaitForever', status: 'COMPLETED', output: { n: 1 } },
    });
  });

  it('durable-timer: CreateTimer(1s) fires after a second, by the workflow\'s clock and by the client\'s', () => {
    const seen = observed('durable-timer') as { instance: { status: string; input: number; output: { sleptMs: number } }; wallMs: number };
    expect(seen.instance).to.deep.include({ status: 'COMPLETED', input: 1000 });
    expect(seen.instance.output.sleptMs).to.be.within(1000, 10_000);
    expect(seen.wallMs).to.be.within(1000, 10_000);
  });

  describe('instance-ID reuse (durabletask-go api.WithOrchestrationIdReusePolicy through ScheduleNewWorkflow)', () => {
    /**
     * A GreetWhenReleased run waiting a minute for its event (the only kind the scenarios observe): its input
     * names the run, its output which run ended and what ended its wait.
     */
    function greeter(id: string, name: string, status: string, ended?: 'event' | 'timeout') {
      return {
        id,
        name: 'GreetWhenReleased',
        status,
        input: { name, waitMs: 60_000 },
        ...(ended ? { output: { greeting: `Hello, ${name}!`, by: ended } } : {}),
      };
    }

    it('IGNORE while RUNNING: the start answers the same ID and the running instance keeps its input', () => {
      expect(observed('reuse-policy-ignore-running')).to.deep.equal({
        answeredId: 'go-reuse-ignore',
        afterIgnoredStart: greeter('go-reuse-ignore', 'first', 'RUNNING'),
        ended: greeter('go-reuse-ignore', 'first', 'COMPLETED', 'event'),
      });
    });

    it('TERMINATE while RUNNING: the new run replaces the old one, whose timeout never fires into it', () => {
      // Had the old run (1 s timeout) survived the replacement, the instance would have completed before the
      // event, by "timeout", or with "Hello, old!".
      expect(observed('reuse-policy-terminate-running')).to.deep.equal({
        afterOldTimeout: greeter('go-reuse-terminate', 'new', 'RUNNING'),
        ended: greeter('go-reuse-terminate', 'new', 'COMPLETED', 'event'),
      });
    });

    it('ERROR for RUNNING, RUNNING not listed, or no policy while running: ALREADY_EXISTS, the instance untouched', () => {
      const { ended, ...attempts } = observed('reuse-policy-refused');
      expect(Object.keys(attempts).sort()).to.deep.equal(['errorForRunning', 'noPolicy', 'terminateForTerminalStates']);
      for (const [attempt, outcome] of Object.entries(attempts)) {
        expect(outcome, attempt).to.have.property('code', 'AlreadyExists');
        expect(outcome, attempt).to.have.property('message').that.includes("'go-reuse-refused'");
      }
      expect(ended).to.deep.equal(greeter('go-reuse-refused', 'kept', 'COMPLETED', 'event'));
    });

    it('no policy on a COMPLETED instance: the new run replaces it and completes', () => {
      const run = (city: string) => ({ id: 'go-reuse-completed', name: 'Sequence', status: 'COMPLETED', input: [city], output: [`Hello, ${city}!`] });
      expect(observed('reuse-no-policy-completed')).to.deep.equal({ first: run('Oslo'), second: run('Lima') });
    });
  });

  it('grpc-invalid-ids: `a/b` and 65 characters are refused with INVALID_ARGUMENT, 64 characters run', () => {
    const seen = observed('grpc-invalid-ids') as Record<string, { code: string; message: string }>;
    expect(seen.startSlash).to.include({ code: 'InvalidArgument' }).and.property('message').that.includes("'a/b'");
    expect(seen.fetchSlash).to.include({ code: 'InvalidArgument' }).and.property('message').that.includes("'a/b'");
    expect(seen.start65Chars).to.include({ code: 'InvalidArgument' }).and.property('message').that.includes('64');
    expect(seen.start64Chars).to.equal('COMPLETED');
  });
});
