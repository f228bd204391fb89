import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { noRouteDetail } from '../../infra/local/emulators/gateway';
import { LOCAL_ADMIN_API_SECRET } from '../../infra/local/start/defaults';
import { adminCall, fieldOf } from '../../infra/local/tools/admin-call';
import { documentRoutes } from '../../infra/local/tools/admin-routes';
import { fieldErrors } from '../../lib/api/http/problem';
import { openApiDocument } from '../../lib/api/openapi';
import { DomainError } from '../../lib/shared/errors';
import { createWalletAddress } from '../../lib/wallet-addresses';
import { inMemory } from '../harness/in-memory';

// Issue 48: errors that misled an operator trying things out locally. Each now says what is wrong.
const doc = openApiDocument();
const mem = inMemory();

describe('the CLI (npm run admin)', () => {
  const call = (args: string[], env: Record<string, string> = {}) => adminCall(args, env, doc, 3001);

  it('refuses a path without its leading slash, showing it with one (it printed only its usage)', () => {
    expect(call(['GET', 'assets'])).toEqual({ refused: 'GET assets: a path begins with /, as in GET /assets' });
  });

  it('refuses a method the Admin API does not take, naming those it takes', () => {
    expect(call(['FETCH', '/assets'])).toEqual({ refused: 'FETCH is not a method of the Admin API, which takes GET, POST, PUT, PATCH, DELETE' });
  });

  it("sends --tenant without a secret signed with the operator's, which may act for any active tenant (docs/tenants.md)", () => {
    expect(call(['--tenant', 't1', 'GET', '/assets'])).toMatchObject({
      method: 'GET',
      path: '/assets',
      headers: { 'tenant-id': 't1' },
      secret: LOCAL_ADMIN_API_SECRET,
      base: 'http://localhost:3001',
    });
    expect(call(['GET', '/assets'], { TENANT_ID: 't2', ADMIN_API_SECRET: 'its-own' })).toMatchObject({ headers: { 'tenant-id': 't2' }, secret: 'its-own' });
  });

  // The README's walkthrough pasted again found its EUR asset by this (its POST is then a 409).
  it('--field picks an item of a list by one of its fields, as well as by its place', () => {
    const answer = {
      items: [
        { id: 'a1', code: 'USD' },
        { id: 'a2', code: 'EUR', address: 'http://x.example/bob' },
      ],
    };
    expect(fieldOf(answer, 'items[code=EUR].id')).toBe('a2');
    expect(fieldOf(answer, 'items[address=http://x.example/bob].code')).toBe('EUR');
    expect(fieldOf(answer, 'items.0.id')).toBe('a1');
    expect(fieldOf(answer, 'items[code=GBP].id')).toBeUndefined();
    expect(fieldOf(answer, 'id[code=EUR]')).toBeUndefined();
  });
});

describe("the local gateway's answer to a path no route serves", () => {
  const routes = documentRoutes(doc);

  it('names the nearest routes, and not SigV4, which no Admin route needs', () => {
    expect(noRouteDetail(routes, 'GET', '/asset')).toBe('No route GET /asset; the nearest: GET /assets');
    expect(noRouteDetail(routes, 'DELETE', '/assetz/x/y/z')).toMatch(/^No route DELETE \/assetz\/x\/y\/z; the nearest: POST \/assets, GET \/assets, /);
    expect(noRouteDetail(routes, 'GET', '/nothing')).toBe('No route GET /nothing');
  });
});

describe('a request without the body its route takes', () => {
  it('is told the body is missing, not "(root) is required"', () => {
    const parsed = z.object({ code: z.string() }).safeParse(undefined);
    expect(fieldErrors(parsed.error!)).toEqual([{ field: '(body)', message: 'is missing: this request takes a JSON body' }]);
    // A field of it, and a query parameter, as before.
    expect(fieldErrors(z.object({ code: z.string() }).safeParse({}).error!)).toEqual([{ field: 'code', message: 'is required' }]);
    expect(fieldErrors(z.object({ limit: z.string() }).safeParse(undefined).error!, 'query')).toEqual([{ field: 'query', message: 'is required' }]);
  });
});

describe("a tenant's wallet address outside its prefix", () => {
  it("is refused naming the tenant's prefix, not WALLET_ADDRESS_URL", async () => {
    const prefix = 'https://wallet.example/acme';
    const node = mem.tenant({ id: 'acme', walletAddressPrefix: prefix, ilpAddressSuffix: 'acme' });
    const refused = await createWalletAddress(node, { address: 'https://wallet.example/alice', assetCode: 'USD' }).catch((e) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused.fields).toEqual([{ field: 'address', message: `must be under the walletAddressPrefix of tenant acme (${prefix}/...)` }]);
    // The operator's, as before.
    const operators = await createWalletAddress(mem.node, { address: 'https://elsewhere.example/alice', assetCode: 'USD' }).catch((e) => e);
    expect(operators.fields).toEqual([{ field: 'address', message: 'must be under WALLET_ADDRESS_URL (https://wallet.example/...)' }]);
  });
});
