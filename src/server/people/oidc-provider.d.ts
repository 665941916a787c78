/** The part of `oidc-provider` (a development dependency, without its own types) the tests use. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    /** A Koa middleware around the provider's own (`ctx.body` is a token endpoint's answer as an object). */
    use(fn: (ctx: { path: string; body: unknown }, next: () => Promise<void>) => Promise<void>): this;
  }
  export type { Account };
}
