import { appSetting, type DbOrTx } from '@nestegg/db';
import { eq } from 'drizzle-orm';

const SIGNUP_ENABLED = 'signup_enabled';

/** Application-wide switches an admin sets (the `app_setting` table). */
export class AppSettings {
  constructor(private readonly deps: { db: DbOrTx }) {}

  /** Sign-up is open unless an admin closed it (a missing row means open). */
  async isSignupEnabled(): Promise<boolean> {
    const [row] = await this.deps.db
      .select({ value: appSetting.value })
      .from(appSetting)
      .where(eq(appSetting.key, SIGNUP_ENABLED));
    return row ? row.value === true : true;
  }

  async setSignupEnabled(enabled: boolean): Promise<void> {
    await this.deps.db
      .insert(appSetting)
      .values({ key: SIGNUP_ENABLED, value: enabled })
      .onConflictDoUpdate({ target: appSetting.key, set: { value: enabled, updatedAt: new Date() } });
  }
}
