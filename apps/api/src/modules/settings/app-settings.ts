import { appSetting, type DbOrTx } from '@nestegg/db';
import { eq } from 'drizzle-orm';

const SIGNUP_ENABLED = 'signup_enabled';

/** Sign-up is open unless an admin closed it (a missing row means open). */
export async function isSignupEnabled(db: DbOrTx): Promise<boolean> {
  const [row] = await db.select({ value: appSetting.value }).from(appSetting).where(eq(appSetting.key, SIGNUP_ENABLED));
  return row ? row.value === true : true;
}

export async function setSignupEnabled(db: DbOrTx, enabled: boolean): Promise<void> {
  await db
    .insert(appSetting)
    .values({ key: SIGNUP_ENABLED, value: enabled })
    .onConflictDoUpdate({ target: appSetting.key, set: { value: enabled, updatedAt: new Date() } });
}
