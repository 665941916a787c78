/**
 * A real OpenID Connect provider for the tests (`oidc-provider`, with its development login and
 * consent pages: any login with any password signs in, the login being the account's email), on
 * a port of this machine.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { OidcConfig } from './oidc';

export interface TestProvider {
  readonly config: OidcConfig;
  close(): Promise<void>;
}

/**
 * Starts a provider that knows one client, whose only redirect URI is `redirectUri`. Emails of
 * `unverified` are answered with `email_verified: false`.
 */
export async function startTestProvider(
  redirectUri: string,
  opts: { port?: number; unverified?: readonly string[] } = {},
): Promise<TestProvider> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config: OidcConfig = {
    issuer,
    clientId: 'arc-studio',
    clientSecret: 'a-client-secret-of-the-tests-0123456789',
    name: 'Test Provider',
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: config.clientId,
        client_secret: config.clientSecret,
        redirect_uris: [redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    async findAccount(_ctx: unknown, id: string) {
      return {
        accountId: id,
        async claims() {
          return { sub: id, email: id, email_verified: !opts.unverified?.includes(id), name: id.split('@')[0] };
        },
      };
    },
    cookies: { keys: ['cookie-key-of-the-test-provider'] },
  });
  server.on('request', provider.callback());
  return {
    config,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
