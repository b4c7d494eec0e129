import {
  AppStoreGateway,
  AppStoreSync,
  appStoreConfigOf,
  GooglePlayClient,
  MembershipSync,
  ProductCatalog,
  PushAuthenticator,
  storeApiConfigOf,
  storePushConfigOf,
} from '@nestegg/membership';
import type { Infrastructure } from '../../../lib/infrastructure.js';
import type { SessionStore } from '../../members/auth/index.js';
import { AppStoreNotificationIntake } from './appstore-notifications.js';
import { BillingService } from './billing.service.js';
import { StoreNotificationIntake } from './store-notifications.js';

/** The billing services, each given exactly what it uses (called by the composition root). */
export function billingServices({ env, db, clock, logger }: Infrastructure, sessions: SessionStore) {
  const storeConfig = storeApiConfigOf(env);
  const pushConfig = storePushConfigOf(env);
  const appStoreConfig = appStoreConfigOf(env);
  const store = storeConfig ? new GooglePlayClient(storeConfig, clock) : null;
  const gateway = appStoreConfig ? new AppStoreGateway(appStoreConfig, env.BILLING_TEST_MODE) : null;
  const catalog = new ProductCatalog(env.BILLING_PRODUCTS);
  const packageName = storeConfig?.packageName ?? null;
  const appStore = new AppStoreSync({ db, gateway, catalog, clock, logger });
  const sync = new MembershipSync({ db, store, catalog, clock, logger, testMode: env.BILLING_TEST_MODE, appStore });
  return {
    membership: sync,
    billing: new BillingService({
      db,
      sync,
      appStore,
      sessions,
      catalog,
      clock,
      manageUrls: { GOOGLE_PLAY: env.STORE_MANAGE_URL, APP_STORE: env.APPSTORE_MANAGE_URL },
      packageName,
    }),
    storeNotifications: new StoreNotificationIntake({
      db,
      push: pushConfig ? new PushAuthenticator(pushConfig) : null,
      packageName,
      clock,
    }),
    appStoreNotifications: new AppStoreNotificationIntake({ db, gateway, clock }),
  };
}
