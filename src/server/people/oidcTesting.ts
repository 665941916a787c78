/**
 * A real OpenID Connect provider for the tests (`oidc-provider`, with its development login and
 * consent pages: any login with any password signs in, the login being the account's email), on
 * a free port of this machine.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { OidcConfig } from './oidc';

export interface TestProvider {
  readonly config: OidcConfig;
  /**
   * Registers the one client's only redirect URI and starts answering (the studio's address may
   * be known only after the provider's: its issuer goes in the studio's environment).
   */
  attach(redirectUri: string): void;
  close(): Promise<void>;
}

/** Starts a provider on a free port; emails of `unverified` are answered with `email_verified: false`. */
export async function startTestProvider(opts: { unverified?: readonly string[] } = {}): Promise<TestProvider> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config: OidcConfig = {
    issuer,
    clientId: 'arc-studio',
    clientSecret: 'a-client-secret-of-the-tests-0123456789',
    name: 'Test Provider',
  };
  const attach = (redirectUri: string) => {
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
  };
  return {
    config,
    attach,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
