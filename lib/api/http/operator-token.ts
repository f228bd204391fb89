import { CognitoJwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';

// An operator signed in to the console proves who it is by the ID token its user pool gave it:
// Cognito's on AWS; under npm start the local sign-in's (infra/local/start/operators.ts), which signs as
// the pool does, with keys of its own. The token is checked with AWS's verifier for Cognito: its
// signature against the pool's keys, its issuer (the pool), audience (the console's app client),
// expiry and token_use. Every Admin function checks it itself (lib/api/http/admin.ts), so a direct
// invoke cannot pass for an operator by writing claims into its event; the local stand-in for
// API Gateway's Cognito authorizer checks it the same way.
export interface ConsolePool {
  userPoolId?: string; // none: no token is taken
  clientId: string;
  jwks?: string; // the pool's public keys, given (the local sign-in's): none is fetched
}

export type TokenCheck = { ok: true; claims: JwtPayload } | { ok: false; reason: string };

export function consoleTokens(pool: ConsolePool): (token: string | undefined) => Promise<TokenCheck> {
  const { userPoolId, clientId, jwks } = pool;
  if (!userPoolId || !clientId) return async () => ({ ok: false, reason: 'This deployment names no console user pool' });
  // With the keys given, a token signed by any other key is refused without a fetch.
  const noFetch = { fetch: () => Promise.reject(new Error('No key of the local sign-in has this kid')) };
  const verifier = CognitoJwtVerifier.create(
    { userPoolId, clientId, tokenUse: 'id' },
    jwks ? { jwksCache: new SimpleJwksCache({ fetcher: noFetch }) } : undefined,
  );
  if (jwks) verifier.cacheJwks(JSON.parse(jwks));
  return async (token) => {
    // The console sends the token bare, as API Gateway's Cognito authorizer takes it; Bearer too.
    const bare = token?.replace(/^Bearer\s+/i, '');
    if (!bare) return { ok: false, reason: 'No ID token' };
    try {
      return { ok: true, claims: await verifier.verify(bare) };
    } catch (e) {
      return { ok: false, reason: (e as Error).message };
    }
  };
}
