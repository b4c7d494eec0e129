import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';

const { getSignupSetting, setSignupSetting } = contract.admin;

/** The sign-up switch (`/api/admin/settings/signup`). Admin-only. */
export default async function settingsModule(app: FastifyInstance) {
  const { settings } = app.services;
  registerContractRouter(
    app,
    { getSignupSetting, setSignupSetting },
    {
      getSignupSetting: async () => ({ status: 200, body: { enabled: await settings.isSignupEnabled() } }),
      setSignupSetting: async ({ body }) => {
        await settings.setSignupEnabled(body.enabled);
        return { status: 200, body: { enabled: body.enabled } };
      },
    },
  );
}
