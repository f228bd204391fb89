import { createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Role, roles } from '../../lib/operators';

// The console's operators under npm start: the local stand-in for the stage's Cognito user pool
// (infra/resources.yml). Each operator has a password (kept as a scrypt hash), a role and maybe a
// tenant; signing in gives an ID token (a JWT, HMAC-signed with a key of the node's) that lives as
// long as the pool's (15 minutes), and the local gateway's authorizer verifies it and puts the
// claims in the event as API Gateway's Cognito authorizer does. Kept in <data folder>/operators.json
// (mode 0600), read at each sign-in so that `npm run operator` adds one to a running node; without
// a data folder (tests), in memory. No second factor here: the TOTP that the pool asks for on AWS
// is Cognito's own, and nothing of it reaches the service.
export const ID_TOKEN_SECS = 15 * 60;
const ISSUER = 'local-sign-in';

interface StoredOperator {
  role: Role;
  tenant?: string;
  salt: string;
  hash: string;
}
interface Stored {
  signingKey: string;
  operators: Record<string, StoredOperator>;
}

// What API Gateway's Cognito authorizer passes a function (requestContext.authorizer.claims): the
// ID token's claims, every one a string, one group as its name.
export type Claims = Record<string, string>;

export interface NewOperator {
  name: string;
  password: string;
  role: Role;
  tenant?: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hashOf = (password: string, salt: string) => scryptSync(password, salt, 32).toString('base64url');
// Cognito's minimum, as the pool's password policy asks for it.
const STRONG = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[^A-Za-z0-9]).{14,}$/;

export function localOperators(dataDir?: string) {
  const file = dataDir && join(dataDir, 'operators.json');
  let memory: Stored = { signingKey: randomBytes(32).toString('base64url'), operators: {} };
  const read = (): Stored => (file ? JSON.parse(readFileSync(file, 'utf8')) : memory);
  const write = (stored: Stored) => {
    memory = stored;
    if (file) writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  };
  if (file && !existsSync(file)) {
    mkdirSync(dataDir!, { recursive: true });
    write(memory);
  }
  const signingKey = read().signingKey;
  const sign = (data: string) => createHmac('sha256', signingKey).update(data).digest();

  function add(op: NewOperator): void {
    if (!/^[\w.@+-]{1,128}$/.test(op.name)) throw new Error(`An operator's name is letters, digits and . @ + - _ (${op.name} is not)`);
    if (!roles.includes(op.role)) throw new Error(`A role is one of ${roles.join(', ')} (${op.role} is not)`);
    if (!STRONG.test(op.password)) throw new Error('A password has at least 14 characters, with a lower-case and an upper-case letter, a digit and a symbol');
    const stored = read();
    const salt = randomBytes(16).toString('base64url');
    stored.operators[op.name] = { role: op.role, ...(op.tenant && { tenant: op.tenant }), salt, hash: hashOf(op.password, salt) };
    write(stored);
  }

  // An ID token for the operator, as Cognito's: `cognito:groups` the role, `custom:tenant` the tenant.
  function idToken(name: string, lifetimeSecs = ID_TOKEN_SECS, now = Date.now()): string {
    const op = read().operators[name];
    if (!op) throw new Error(`No operator ${name}`);
    const iat = Math.floor(now / 1000);
    const payload = {
      sub: name,
      'cognito:username': name,
      'cognito:groups': [op.role],
      ...(op.tenant && { 'custom:tenant': op.tenant }),
      token_use: 'id',
      iss: ISSUER,
      iat,
      exp: iat + lifetimeSecs,
    };
    const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`;
    return `${unsigned}.${sign(unsigned).toString('base64url')}`;
  }

  // The operator's ID token for a right name and password; undefined for any wrong one.
  function signIn(name: string, password: string): { idToken: string; expiresIn: number } | undefined {
    const op = read().operators[name];
    // (A name nobody has costs a hash too, so that the time taken tells nothing.)
    const hash = hashOf(password, op?.salt ?? 'nobody');
    if (!op || !timingSafeEqual(Buffer.from(hash), Buffer.from(op.hash))) return undefined;
    return { idToken: idToken(name), expiresIn: ID_TOKEN_SECS };
  }

  // The claims of a valid, unexpired ID token of this node's, as the authorizer passes them; else undefined.
  function verify(token: string | undefined, now = Date.now()): Claims | undefined {
    const [header, payload, signature] = token?.split('.') ?? [];
    if (!header || !payload || !signature) return undefined;
    const expected = sign(`${header}.${payload}`);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>; // signed by us: JSON
    if (claims.token_use !== 'id' || claims.iss !== ISSUER || typeof claims.exp !== 'number' || claims.exp * 1000 <= now) return undefined;
    const groups = claims['cognito:groups'] as string[];
    return Object.fromEntries(Object.entries(claims).map(([k, v]) => [k, k === 'cognito:groups' ? groups.join(',') : String(v)]));
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

  return { add, signIn, verify, idToken, seed, file };
}
export type LocalOperators = ReturnType<typeof localOperators>;
