/**
 * A real OpenID Connect provider for the tests (`oidc-provider`, with its development login and
 * consent pages: any login with any password signs in, the login being the account's email), on
 * a free port of this machine.
 *
 * A test may make the provider misbehave (`forgeIdToken`): the ID token its token endpoint
 * answers is rewritten, with other claims or signed by a key the provider does not publish, as a
 * compromised or impersonated provider would send it; the rest of the flow (discovery, the
 * published keys, login, the code exchange) is the provider's own.
 */
import { createSign, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { OidcConfig } from './oidc';

/** How a forged ID token is made from the one the provider issued. */
export interface IdTokenForgery {
  /** The claims it carries instead (given the provider's). */
  readonly claims: (issued: Record<string, unknown>) => Record<string, unknown>;
  /** `stranger`: signed by a key the provider does not publish, under the provider's key id. */
  readonly signer: 'provider' | 'stranger';
}

const KID = 'test-provider-key';

/** An RSA signing key as a private JWK. */
function rsaKey(): JsonWebKey {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
}

/** A JWT signed with RS256 by `key` (a private JWK) under `kid`. */
function signJwt(claims: Record<string, unknown>, key: JsonWebKey, kid: string): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${part({ alg: 'RS256', typ: 'JWT', kid })}.${part(claims)}`;
  const signature = createSign('RSA-SHA256').update(input).sign({ key, format: 'jwk' });
  return `${input}.${signature.toString('base64url')}`;
}

export interface TestProvider {
  readonly config: OidcConfig;
  /**
   * Registers the one client's only redirect URI and starts answering (the studio's address may
   * be known only after the provider's: its issuer goes in the studio's environment).
   */
  attach(redirectUri: string): void;
  /** Rewrites every ID token the token endpoint answers from now on; null stops. */
  forgeIdToken(forgery: IdTokenForgery | null): void;
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
  const key = { ...rsaKey(), kid: KID, use: 'sig', alg: 'RS256' };
  let forgery: IdTokenForgery | null = null;
  let stranger: JsonWebKey | null = null;
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
      jwks: { keys: [key] },
    });
    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as { id_token?: unknown } | undefined;
      if (!forgery || ctx.path !== '/token' || typeof body?.id_token !== 'string') return;
      const issued = JSON.parse(Buffer.from(body.id_token.split('.')[1], 'base64url').toString()) as Record<
        string,
        unknown
      >;
      const signer = forgery.signer === 'provider' ? key : (stranger ??= rsaKey());
      body.id_token = signJwt(forgery.claims(issued), signer, KID);
    });
    server.on('request', provider.callback());
  };
  return {
    config,
    attach,
    forgeIdToken: (f) => {
      forgery = f;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
