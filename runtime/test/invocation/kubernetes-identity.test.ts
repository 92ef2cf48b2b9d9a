import { expect } from 'chai';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CallerReview } from '../../src/components/kubernetes-callers.js';
import { CALLER_TOKEN_METADATA, KubernetesIdentity } from '../../src/invocation/kubernetes-identity.js';
import { expectRuntimeRejection } from '../support/expect-runtime-error.js';
import { removeTempFolder, tempFolder } from '../support/temp-folders.js';

/** A JWT-shaped token whose "signature" names the pod's app (only the payload's `exp` is read locally). */
function token(app: string, expSeconds: number): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'RS256' })}.${part({ exp: expSeconds })}.${app}`;
}

/** Accepts the tokens signed `orders` as an `orders` pod's, refuses the rest, and counts the reviews. */
function fakeReview(): { review: CallerReview; count: () => number } {
  let reviews = 0;
  const review: CallerReview = (t) => {
    reviews++;
    const orders = { appId: 'orders', namespace: 'shop', serviceAccount: 'orders', pod: 'orders-1' };
    return Promise.resolve(t.endsWith('.orders') ? orders : { refused: 'the API server does not accept its token' });
  };
  return { review, count: () => reviews };
}

describe('KubernetesIdentity (caller identity in kubernetes mode)', () => {
  let dir: string;
  let now: number;
  beforeEach(() => {
    dir = tempFolder('svc-k8s-id-');
    now = 1_000_000_000_000;
  });
  afterEach(() => removeTempFolder(dir));

  const identity = (review: CallerReview, tokenFile = path.join(dir, 'token')) => new KubernetesIdentity({ tokenFile, review: () => Promise.resolve(review), now: () => now });
  const presenting = (value: string | undefined) => (name: string) => (name === CALLER_TOKEN_METADATA ? value : undefined);

  it('presents the token file, and reads it again once the kubelet swapped it', async () => {
    const file = path.join(dir, 'token');
    writeFileSync(file, 'first\n');
    const id = identity(fakeReview().review, file);
    expect(await id.credentials()).to.deep.equal({ [CALLER_TOKEN_METADATA]: 'first' });
    // The kubelet writes a new file and renames it into place: a new inode.
    writeFileSync(path.join(dir, 'next'), 'second');
    renameSync(path.join(dir, 'next'), file);
    expect(await id.credentials()).to.deep.equal({ [CALLER_TOKEN_METADATA]: 'second' });
  });

  it('names the token file when it cannot be read', async () => {
    await expectRuntimeRejection(identity(fakeReview().review, path.join(dir, 'missing')).credentials(), 'ERR_DIRECT_INVOKE', /invocation token .*missing.*--invoke-token-file/);
  });

  it('takes the app from the reviewed token, and refuses a claim of another app or namespace', async () => {
    const id = identity(fakeReview().review);
    const t = token('orders', now / 1000 + 3600);
    expect(await id.authenticate(presenting(t), { appId: 'orders', namespace: 'shop' })).to.deep.equal({ appId: 'orders', namespace: 'shop' });
    await expectRuntimeRejection(id.authenticate(presenting(t), { appId: 'payments', namespace: 'shop' }), 'ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED', /belongs to app orders in namespace shop \(pod orders-1\), not payments in shop/);
    await expectRuntimeRejection(id.authenticate(presenting(t), { appId: 'orders', namespace: 'other' }), 'ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED', /not orders in other/);
  });

  it('refuses a call without a token, and one whose token the review refuses', async () => {
    const id = identity(fakeReview().review);
    await expectRuntimeRejection(id.authenticate(presenting(undefined), { appId: 'orders', namespace: 'shop' }), 'ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED', /no ServiceAccount token presented/);
    await expectRuntimeRejection(id.authenticate(presenting('forged'), { appId: 'orders', namespace: 'shop' }), 'ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED', /does not accept its token/);
  });

  it('reviews a token once while it is valid (concurrent calls share the review), again near its expiry, never a refused one from memory', async () => {
    const fake = fakeReview();
    const id = identity(fake.review);
    const claim = { appId: 'orders', namespace: 'shop' };
    const t = token('orders', now / 1000 + 300);
    await Promise.all([1, 2, 3].map(() => id.authenticate(presenting(t), claim)));
    expect(fake.count()).to.equal(1);
    now += 269_000;
    await id.authenticate(presenting(t), claim);
    expect(fake.count()).to.equal(1);
    // Within the 30 s margin before expiry: reviewed again.
    now += 2_000;
    await id.authenticate(presenting(t), claim);
    expect(fake.count()).to.equal(2);
    for (let i = 0; i < 2; i++) await id.authenticate(presenting('bad'), claim).catch(() => undefined);
    expect(fake.count()).to.equal(4);
  });

  it('reviews a long-lived token again after ten minutes (a deleted pod\'s token stops working then)', async () => {
    const fake = fakeReview();
    const id = identity(fake.review);
    const t = token('orders', now / 1000 + 24 * 3600);
    await id.authenticate(presenting(t), { appId: 'orders', namespace: 'shop' });
    now += 10 * 60_000 + 1;
    await id.authenticate(presenting(t), { appId: 'orders', namespace: 'shop' });
    expect(fake.count()).to.equal(2);
  });
});
