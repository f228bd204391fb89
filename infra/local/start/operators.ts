import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, scryptSync, sign, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { consoleTokens } from '../../../lib/api/http/operator-token';
import { type Role, roles } from '../../../lib/shared/operators';
import { LOCAL_REGION } from '../emulators/emulators';

// The console's operators under npm start: the local stand-in for the stage's Cognito user pool
// (infra/resources.yml) and its app client. Each operator has a password (kept as a scrypt hash), a
// role and maybe a tenant; signing in gives an ID token as Cognito's: a JWT signed (RS256) with a
// key of the node's, issued by the pool `LOCAL_USER_POOL_ID` for the client `LOCAL_CLIENT_ID`,
// living as long as the pool's (15 minutes). Its public keys (`jwks`) reach the functions as
// CONSOLE_JWKS, so that each Admin function verifies the token with AWS's verifier exactly as on
// AWS (lib/api/http/operator-token.ts), and the local gateway's stand-in for the Cognito authorizer
// does the same and puts the claims in the event as API Gateway does. Kept in
// <data folder>/operators.json (mode 0600), read at each sign-in so that `npm run operator` adds one
// to a running node; without a data folder (tests), in memory. No second factor here: the TOTP that
// the pool asks for on AWS is Cognito's own, and nothing of it reaches the service.
export const ID_TOKEN_SECS = 15 * 60;
export const LOCAL_USER_POOL_ID = `${LOCAL_REGION}_local`;
export const LOCAL_CLIENT_ID = 'local-console';
const ISSUER = `https://cognito-idp.${LOCAL_REGION}.amazonaws.com/${LOCAL_USER_POOL_ID}`;

interface StoredOperator {
  role: Role;
  tenant?: string;
  salt: string;
  hash: string;
}
interface Stored {
  signingKey: string; // a PKCS#8 PEM (an older store's HMAC key is replaced at the next start)
  operators: Record<string, StoredOperator>;
}

// What API Gateway's Cognito authorizer passes a function (requestContext.authorizer.claims): the
// ID token's claims, every one a string, groups joined.
export type Claims = Record<string, string>;

export interface NewOperator {
  name: string;
  password: string;
  role: Role;
  tenant?: string;
}

// What an ID token says of whom it names (for tests, any of it: the local pool signs what it is given).
export interface Subject {
  name: string;
  groups: string[];
  tenant?: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hashOf = (password: string, salt: string) => scryptSync(password, salt, 32).toString('base64url');
// Cognito's minimum, as the pool's password policy asks for it.
const STRONG = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[^A-Za-z0-9]).{14,}$/;
// An operator by name, never a name every object has (__proto__, constructor, toString).
const own = (stored: Stored, name: string) => (Object.hasOwn(stored.operators, name) ? stored.operators[name] : undefined);

// An RSA key pair, as a PKCS#8 PEM: the pool's signing key.
export const newSigningKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

// `signingKey`: a new store's key (else one made for it: a key pair costs a tenth of a CPU-second
// or more, which the tests' stacks, one a file, save by taking the run's).
export function localOperators(dataDir?: string, signingKey?: string) {
  const file = dataDir && join(dataDir, 'operators.json');
  // A key is made only for a store that has none (a kept store has its own).
  const fresh = (): Stored => ({ signingKey: signingKey ?? newSigningKey(), operators: {} });
  let memory = file ? undefined : fresh();
  const read = (): Stored => (file ? JSON.parse(readFileSync(file, 'utf8')) : memory!);
  const write = (stored: Stored) => {
    memory = stored;
    if (file) writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  };
  if (file && !existsSync(file)) {
    mkdirSync(dataDir!, { recursive: true });
    write(fresh());
  }
  // A store from before the keys were asymmetric: a key pair now (its tokens, 15 minutes at most, lapse).
  if (!read().signingKey.startsWith('-----BEGIN')) write({ ...read(), signingKey: newSigningKey() });
  const privateKey = createPrivateKey(read().signingKey);
  const kid = `local-${createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).subarray(-8).toString('hex')}`;
  // The pool's public keys, as Cognito publishes them at <issuer>/.well-known/jwks.json.
  const jwks = { keys: [{ ...createPublicKey(privateKey).export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] };
  const check = consoleTokens({ userPoolId: LOCAL_USER_POOL_ID, clientId: LOCAL_CLIENT_ID, jwks: JSON.stringify(jwks) });

  function add(op: NewOperator): void {
    if (!/^[\w.@+-]{1,128}$/.test(op.name) || op.name in Object.prototype) {
      throw new Error(`An operator's name is letters, digits and . @ + - _, and not a name every object has (${op.name} is not)`);
    }
    if (!roles.includes(op.role)) throw new Error(`A role is one of ${roles.join(', ')} (${op.role} is not)`);
    if (!STRONG.test(op.password)) throw new Error('A password has at least 14 characters, with a lower-case and an upper-case letter, a digit and a symbol');
    const stored = read();
    const salt = randomBytes(16).toString('base64url');
    stored.operators[op.name] = { role: op.role, ...(op.tenant && { tenant: op.tenant }), salt, hash: hashOf(op.password, salt) };
    write(stored);
  }

  // An ID token as Cognito's for whom it names: `cognito:groups` the roles, `custom:tenant` the
  // tenant. `claims`: others in their place (a test's token for another client, or of another use).
  function issue(who: Subject, lifetimeSecs = ID_TOKEN_SECS, claims: Record<string, unknown> = {}): string {
    const iat = Math.floor(Date.now() / 1000);
    const payload = {
      sub: who.name,
      email: who.name,
      'cognito:username': who.name,
      'cognito:groups': who.groups,
      ...(who.tenant && { 'custom:tenant': who.tenant }),
      token_use: 'id',
      iss: ISSUER,
      aud: LOCAL_CLIENT_ID,
      auth_time: iat,
      iat,
      exp: iat + lifetimeSecs,
      ...claims,
    };
    const unsigned = `${b64({ alg: 'RS256', typ: 'JWT', kid })}.${b64(payload)}`;
    return `${unsigned}.${sign('sha256', Buffer.from(unsigned), privateKey).toString('base64url')}`;
  }

  // A stored operator's ID token.
  function idToken(name: string, lifetimeSecs = ID_TOKEN_SECS): string {
    const op = own(read(), name);
    if (!op) throw new Error(`No operator ${name}`);
    return issue({ name, groups: [op.role], tenant: op.tenant }, lifetimeSecs);
  }

  // The operator's ID token for a right name and password; undefined for any wrong one.
  function signIn(name: string, password: string): { idToken: string; expiresIn: number } | undefined {
    const op = own(read(), name);
    // (A name nobody has costs a hash too, so that the time taken tells nothing.)
    const hash = hashOf(password, op?.salt ?? 'nobody');
    if (!op || !timingSafeEqual(Buffer.from(hash), Buffer.from(op.hash))) return undefined;
    return { idToken: idToken(name), expiresIn: ID_TOKEN_SECS };
  }

  // The claims of a valid, current ID token of this pool's, as API Gateway's authorizer passes
  // them (strings, groups joined by commas); else undefined.
  async function verify(token: string | undefined): Promise<Claims | undefined> {
    const checked = await check(token);
    if (!checked.ok) return undefined;
    return Object.fromEntries(Object.entries(checked.claims).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
  }

  // On a first start: one operator of each role, with a password made here, kept beside the store
  // (<data folder>/operators-seeded.json) for the user to sign in with.
  function seed(): Record<Role, string> | undefined {
    if (Object.keys(read().operators).length) return undefined;
    const passwords = Object.fromEntries(roles.map((role) => [role, `${randomBytes(12).toString('base64url')}-Aa1`])) as Record<Role, string>;
    for (const role of roles) add({ name: role, password: passwords[role], role });
    if (file) writeFileSync(join(dataDir!, 'operators-seeded.json'), `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600 });
    return passwords;
  }

  // What the functions need to verify its tokens as on AWS (CONSOLE_USER_POOL_ID, CONSOLE_CLIENT_ID, CONSOLE_JWKS).
  const pool = { userPoolId: LOCAL_USER_POOL_ID, clientId: LOCAL_CLIENT_ID, jwks: JSON.stringify(jwks) };

  return { add, signIn, verify, issue, idToken, seed, pool, file };
}
export type LocalOperators = ReturnType<typeof localOperators>;
