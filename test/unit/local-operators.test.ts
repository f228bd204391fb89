import { describe, expect, it } from 'vitest';
import { localOperators } from '../../infra/local/start/operators';

// The local sign-in (npm start's stand-in for the console's Cognito user pool): names are looked up
// as the store's own, never an object's built-in (issue 42: `__proto__`, `constructor` and
// `toString` were 500s), and its tokens are the ones its own verifier, AWS's for Cognito, takes.
const PASSWORD = 'A-long-Passw0rd!';

describe('the local sign-in', () => {
  it("answers a name every object has as a wrong name (401's undefined), and refuses to make an operator of one", () => {
    const operators = localOperators();
    operators.add({ name: 'ana@fsp.example', password: PASSWORD, role: 'admin' });
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(operators.signIn(name, PASSWORD), name).toBeUndefined();
      expect(() => operators.idToken(name), name).toThrow(/No operator/);
      expect(() => operators.add({ name, password: PASSWORD, role: 'admin' }), name).toThrow(/not a name every object has/);
    }
    expect(operators.signIn('ana@fsp.example', PASSWORD)?.idToken).toBeDefined();
  });

  it("verifies its own tokens as Cognito's, and no other key's, expired one or one for another client", async () => {
    const operators = localOperators();
    operators.add({ name: 'ana@fsp.example', password: PASSWORD, role: 'operator', tenant: 'acme' });
    const token = operators.signIn('ana@fsp.example', PASSWORD)!.idToken;
    expect(await operators.verify(token)).toMatchObject({ email: 'ana@fsp.example', 'cognito:groups': 'operator', 'custom:tenant': 'acme', token_use: 'id' });
    const other = localOperators();
    const who = { name: 'ana@fsp.example', groups: ['admin'] };
    for (const refused of [other.issue(who), operators.issue(who, -1), operators.issue(who, 900, { aud: 'elsewhere' }), `${token}x`, undefined]) {
      expect(await operators.verify(refused)).toBeUndefined();
    }
  });
});
