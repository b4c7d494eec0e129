import {
  GooglePlayClient,
  MembershipSync,
  ProductCatalog,
  PushAuthenticator,
  storeApiConfigOf,
  storePushConfigOf,
} from '@nestegg/membership';
import type { Infrastructure } from '../../../lib/infrastructure.js';
import type { SessionStore } from '../../members/auth/index.js';
import { BillingService } from './billing.service.js';
import { StoreNotificationIntake } from './store-notifications.js';

/** The billing services, each given exactly what it uses (called by the composition root). */
export function billingServices({ env, db, clock, logger }: Infrastructure, sessions: SessionStore) {
  const storeConfig = storeApiConfigOf(env);
  const pushConfig = storePushConfigOf(env);
  const store = storeConfig ? new GooglePlayClient(storeConfig, clock) : null;
  const catalog = new ProductCatalog(env.BILLING_PRODUCTS);
  const packageName = storeConfig?.packageName ?? null;
  const sync = new MembershipSync({ db, store, catalog, clock, logger, testMode: env.BILLING_TEST_MODE });
  return {
    membership: sync,
    billing: new BillingService({ db, sync, sessions, catalog, clock, manageUrl: env.STORE_MANAGE_URL, packageName }),
    storeNotifications: new StoreNotificationIntake({
      db,
      push: pushConfig ? new PushAuthenticator(pushConfig) : null,
      packageName,
      clock,
    }),
  };
}
