import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { billingEnvShape, storePushConfigOf, storePushEnvShape } from '../config.js';
import { StoreUnavailableError } from '../errors.js';
import { FakeGooglePlay } from '../testing/fake-store.js';
import { PushAuthenticator, PushTokenRejectedError } from './push-auth.js';

const schema = z.object({ ...billingEnvShape, ...storePushEnvShape });

describe('store push authentication (Pub/Sub OIDC token)', () => {
  let store: FakeGooglePlay;
  let auth: PushAuthenticator;
  beforeAll(async () => {
    store = await FakeGooglePlay.start();
    auth = new PushAuthenticator(storePushConfigOf({ ...schema.parse(store.pushEnv()), NODE_ENV: 'test' })!);
  });
  afterAll(() => store.close());

  it('accepts the push service account token for our audience', async () => {
    await expect(auth.verify(`Bearer ${await store.pushToken()}`)).resolves.toBeUndefined();
    await expect(
      auth.verify(`Bearer ${await store.pushToken({ issuer: 'accounts.google.com' })}`),
    ).resolves.toBeUndefined();
  });

  it.each([
    ['no header', async () => undefined],
    ['not a bearer token', async () => 'Basic abc'],
    ['another audience', async () => `Bearer ${await store.pushToken({ audience: 'https://elsewhere.test' })}`],
    ['another issuer', async () => `Bearer ${await store.pushToken({ issuer: 'https://evil.test' })}`],
    ['another sender', async () => `Bearer ${await store.pushToken({ email: 'someone@evil.test' })}`],
    ['an unverified sender', async () => `Bearer ${await store.pushToken({ emailVerified: false })}`],
    ['an expired token', async () => `Bearer ${await store.pushToken({ expiresInSeconds: -120 })}`],
    ['a forged signature', async () => `Bearer ${await store.pushToken({ foreignKey: true })}`],
  ])('rejects %s', async (_name, header) => {
    await expect(auth.verify(await header())).rejects.toBeInstanceOf(PushTokenRejectedError);
  });

  it('says the store is unavailable when its key set cannot be fetched', async () => {
    const config = storePushConfigOf({
      ...schema.parse({ ...store.pushEnv(), STORE_PUSH_JWKS_URL: `${store.url}/missing` }),
      NODE_ENV: 'test',
    })!;
    const unreachable = new PushAuthenticator(config);
    await expect(unreachable.verify(`Bearer ${await store.pushToken()}`)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
