import type { FastifyInstance } from 'fastify';

let sequence = 0;

export function uniqueEmail(label = 'member'): string {
  sequence += 1;
  return `${label}-${sequence}-${Math.random().toString(36).slice(2, 8)}@nestegg.test`;
}

/** Signs up through the api and logs in; returns the session body and a ready header. */
export async function signUpAndLogIn(
  app: FastifyInstance,
  options: { email?: string; password?: string; displayName?: string; rememberMe?: boolean; ip?: string } = {},
) {
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? 'correct horse battery';
  const remoteAddress = options.ip ?? `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  const signup = await app.inject({
    method: 'POST',
    url: '/api/auth/signup',
    remoteAddress,
    payload: { email, password, displayName: options.displayName ?? 'Saver' },
  });
  if (signup.statusCode !== 201) throw new Error(`sign-up failed: ${signup.statusCode} ${signup.body}`);
  const login = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress,
    payload: { email, password, rememberMe: options.rememberMe ?? false },
  });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  const body = login.json() as { token: string; expiresAt: string; member: { id: number } };
  return { ...body, email, password, headers: { authorization: `Bearer ${body.token}` } };
}
