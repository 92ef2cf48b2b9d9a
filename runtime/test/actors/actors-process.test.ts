/**
 * The actor runtime in a real svcd process with app-hosted actors, against SQLite, Redis and PostgreSQL:
 * reminders survive kill -9, acknowledged reminders never fire again, a turn's state is all or nothing.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { stateBackends } from '../integration/state-backends.js';
import { SvcdProcess, componentYaml } from '../support/index.js';
import { ActorApp, type AppCall } from './actor-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of stateBackends()) {
  describe(`actors in a real svcd process (${backend.label})`, function () {
    this.timeout(90_000);
    const appIds: string[] = [];
    let app: ActorApp;
    let svcd: SvcdProcess | undefined;

    const resources = () => ({ 'actorstore.yaml': componentYaml('actorstore', backend.type, { ...backend.metadata, actorStateStore: 'true' }) });

    async function startSvcd(appId: string, reuse?: SvcdProcess): Promise<SvcdProcess> {
      const started = await SvcdProcess.start({
        appId,
        ...(reuse ? { resourcesPath: reuse.resourcesPath, dataDir: reuse.dataDir } : { resources: resources() }),
        args: ['--app-port', String(app.port)],
      });
      app.svcdUrl = started.httpUrl;
      return started;
    }

    beforeEach(async () => {
      app = await ActorApp.start();
    });

    afterEach(async () => {
      await svcd?.kill();
      svcd = undefined;
      await app.close();
    });

    after(async () => backend.cleanup(appIds));

    const newAppId = () => {
      const id = `actors-it-${randomBytes(4).toString('hex')}`;
      appIds.push(id);
      return id;
    };

    const reminderFires = (calls: readonly AppCall[], id: string, name: string) => calls.filter((c) => c.kind === 'remind' && c.id === id && c.name === name).length;

    it('fires reminders after kill -9 and restart, and never again once acknowledged', async () => {
      const appId = newAppId();
      svcd = await startSvcd(appId);
      const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { actors: { type: string }[] };
      expect(meta.actors.map((a) => a.type)).to.include.members(['Counter', 'Pinger']);

      // 20 one-shot reminders fire and are acknowledged before the crash.
      const early = Array.from({ length: 20 }, (_, i) => `e${i}`);
      for (const id of early) {
        const res = await svcd.request('POST', `/v1.0/actors/Pinger/${id}/reminders/early`, { dueTime: '200ms', data: { id } });
        expect(res.status).to.equal(204);
      }
      await app.waitFor((calls) => early.every((id) => reminderFires(calls, id, 'early') >= 1), 'every early reminder fired');
      // A method call queues behind the reminder turn of the same actor: when it answers, the reminder's
      // acknowledgement (the one-shot's delete) has been committed.
      for (const id of early) {
        expect((await svcd.request('PUT', `/v1.0/actors/Pinger/${id}/method/echo`, 'x')).status).to.equal(200);
        expect((await svcd.request('GET', `/v1.0/actors/Pinger/${id}/reminders/early`)).status).to.equal(404);
      }
      const remindBody = JSON.parse(app.calls.find((c) => c.kind === 'remind' && c.id === 'e0')!.body) as { data: unknown; dueTime: string; period: string };
      expect(remindBody).to.deep.equal({ data: { id: 'e0' }, dueTime: '200ms', period: '' });

      // 10 reminders due after the crash, and a periodic one; then kill -9 right away.
      const late = Array.from({ length: 10 }, (_, i) => `l${i}`);
      for (const id of late) expect((await svcd.request('PUT', `/v1.0/actors/Pinger/${id}/reminders/late`, { dueTime: '1s' })).status).to.equal(204);
      expect((await svcd.request('POST', '/v1.0/actors/Pinger/p/reminders/tick', { dueTime: '0s', period: 'PT1S' })).status).to.equal(204);
      await svcd.kill();
      await sleep(1500); // let the late reminders become overdue while svcd is down
      const firesBefore = app.calls.length;

      svcd = await startSvcd(appId, svcd);
      await app.waitFor((calls) => late.every((id) => reminderFires(calls, id, 'late') >= 1), 'every late reminder fired after the restart');
      // A sentinel due after start-up: once it fired, everything overdue at start-up has fired too.
      expect((await svcd.request('POST', '/v1.0/actors/Pinger/sentinel/reminders/s', { dueTime: '500ms' })).status).to.equal(204);
      await app.waitFor((calls) => reminderFires(calls, 'sentinel', 's') === 1, 'the sentinel fired');
      await app.waitFor((calls) => reminderFires(calls.slice(firesBefore), 'p', 'tick') >= 2, 'the periodic reminder kept firing after the restart');

      for (const id of early) expect(reminderFires(app.calls, id, 'early'), `early reminder ${id}`).to.equal(1);
      for (const id of late) expect(reminderFires(app.calls, id, 'late'), `late reminder ${id}`).to.equal(1);
      const tick = (await (await svcd.request('GET', '/v1.0/actors/Pinger/p/reminders/tick')).json()) as { period: string; nextFireTime: string };
      expect(tick.period).to.equal('PT1S');
      expect(Date.parse(tick.nextFireTime)).to.be.greaterThan(Date.now() - 1000);
    });

    it("keeps each turn's state all or nothing across kill -9 under load", async () => {
      const appId = newAppId();
      svcd = await startSvcd(appId);
      const actors = Array.from({ length: 8 }, (_, i) => `c${i}`);
      let stop = false;
      let completed = 0;
      const current = svcd;
      const load = actors.map(async (id) => {
        while (!stop) {
          try {
            const res = await current.request('PUT', `/v1.0/actors/Counter/${id}/method/bump`, {});
            if (res.status === 200) completed++;
          } catch {
            return; // svcd went away mid-request
          }
        }
      });
      await app.waitFor(() => completed >= 40, 'some turns completed under load');
      await svcd.kill(); // turns are in flight, several mid-commit
      stop = true;
      await Promise.all(load);

      svcd = await startSvcd(appId, svcd);
      let total = 0;
      for (const id of actors) {
        const values = [];
        for (let k = 0; k < 20; k++) {
          const res = await svcd.request('GET', `/v1.0/actors/Counter/${id}/state/k${k}`);
          values.push(res.status === 204 ? 0 : ((await res.json()) as number));
        }
        expect(new Set(values).size, `actor ${id} keys ${values.join(',')}`).to.equal(1);
        total += values[0]!;
      }
      expect(total).to.be.at.least(completed);
      // The actors still work after the crash.
      const res = await svcd.request('PUT', '/v1.0/actors/Counter/c0/method/bump', {});
      expect(res.status).to.equal(200);
    });
  });
}
