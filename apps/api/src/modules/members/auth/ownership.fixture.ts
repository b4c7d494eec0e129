import { authSession } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';
import { hashToken } from './session.store.js';

/** A member's session, ended by id through `DELETE /api/auth/sessions/:id`. */
registerOwnedResource({
  name: 'session',
  routes: ['auth.endSession'],
  async make(app, owner) {
    const opened = await app.services.sessions.open(owner.id, { rememberMe: false });
    const [row] = await app.db
      .select({ id: authSession.id })
      .from(authSession)
      .where(eq(authSession.tokenHash, hashToken(opened!.token)));
    return row!.id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(authSession)
      .where(eq(authSession.id, Number(id))),
});
