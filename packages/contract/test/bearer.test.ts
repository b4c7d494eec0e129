/** Issue 20 item 9: the typed client sends the token from the route's metadata, no hand-written headers. */
import { initClient } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { authContract } from '../src/auth.js';
import { bearerAuth } from '../src/common.js';

describe('bearerAuth', () => {
  it('sends the current token on routes that take a session and never on public ones', async () => {
    const seen: Array<{ path: string; authorization: string | undefined }> = [];
    let token: string | undefined;
    const api = initClient(authContract, {
      baseUrl: 'https://api.example.test',
      baseHeaders: bearerAuth(() => token),
      api: async (args) => {
        seen.push({ path: args.path, authorization: args.headers.authorization });
        return { status: 200, body: {}, headers: new Headers() };
      },
    });
    await api.getProfile();
    token = 'abc';
    await api.getProfile();
    await api.signup({ body: { email: 'a@example.com', password: 'correct horse', displayName: 'A' } });
    expect(seen).toEqual([
      { path: 'https://api.example.test/api/auth/profile', authorization: undefined },
      { path: 'https://api.example.test/api/auth/profile', authorization: 'Bearer abc' },
      { path: 'https://api.example.test/api/auth/signup', authorization: undefined },
    ]);
  });
});
