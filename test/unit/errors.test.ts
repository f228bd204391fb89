import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGS, DOC, docWithTable, END, START } from '../../infra/errors-table';
import { ROOT } from '../../infra/local/start/serverless-config';
import { openApiDocument, routeProblems } from '../../lib/api/openapi';
import { signedRoutes } from '../../lib/api/routes';

// The catalogs of errors are the only place a code and a status are written: every error thrown
// is one of their entries, every entry is thrown somewhere, and the wire answers what it did.

const SOURCE_DIRS = ['lib', 'functions', 'infra'];
const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
const FILES = SOURCE_DIRS.flatMap(sources).map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
const entriesOf = () => Object.entries(CATALOGS).flatMap(([name, c]) => Object.entries(c.entries).map(([key, e]) => ({ name, key, file: c.file, ...e })));

// Every code and status the APIs answered before the catalogs (each `new DomainError(kind, code`
// and the like of lib/, functions/ and infra/local/ then): FSP clients are written against these.
// A change here is a contract change, to be marked in CHANGELOG.md.
const WIRE: Record<number, string[]> = {
  400: [
    'idempotency_key_refused',
    'invalid_client',
    'invalid_cursor',
    'invalid_interaction',
    'invalid_packet',
    'invalid_request',
    'invalid_rotation',
    'malformed_json',
    'too_fast',
    'unknown_interaction',
  ],
  401: [
    'invalid_client',
    'invalid_continuation',
    'invalid_interaction',
    'invalid_request',
    'invalid_signature',
    'invalid_token',
    'request_denied',
    'unauthorized',
    'user_denied',
  ],
  403: [
    'auto_peering_disabled',
    'console_refused',
    'forbidden',
    'host_refused',
    'insufficient_grant',
    'invalid_interaction',
    'operator_only',
    'proxy_refused',
    'request_denied',
    'role_forbidden',
  ],
  404: [
    'account_not_found',
    'asset_not_found',
    'grant_not_found',
    'invalid_continuation',
    'key_not_found',
    'liquidity_withdrawal_not_found',
    'metrics_off',
    'not_found',
    'payment_intent_not_found',
    'payment_not_found',
    'peer_not_found',
    'quote_not_found',
    'tenant_not_found',
    'trace_not_found',
    'traces_off',
    'unknown_interaction',
    'wallet_address_not_found',
    'webhook_event_not_found',
  ],
  405: ['method_not_allowed'],
  409: [
    'asset_changed',
    'asset_exists',
    'auth_token_in_use',
    'concurrent_withdrawal',
    'idempotency_key_in_progress',
    'ilp_address_suffix_taken',
    'invalid_state',
    'key_exists',
    'operator_tenant_fixed',
    'peer_changed',
    'peer_exists',
    'peer_has_liquidity',
    'quote_used',
    'tenant_changed',
    'too_many_keys',
    'wallet_address_exists',
    'wallet_address_prefix_in_use',
    'wallet_address_prefix_taken',
    'wallet_address_under_tenant',
    'wallet_address_url_changed',
  ],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: [
    'amount_exceeds_remaining',
    'amount_required',
    'amount_too_small',
    'asset_mismatch',
    'balance_too_large',
    'idempotency_key_reused',
    'insufficient_exchange_rate',
    'insufficient_liquidity',
    'no_route',
    'peer_endpoint_internal',
    'quote_expired',
    'quote_not_found',
    'quote_wallet_mismatch',
    'rate_unavailable',
    'receiver_not_found',
    'receiver_not_open',
    'unknown_asset',
    'unknown_peer',
    'wallet_address_inactive',
    'wallet_address_not_found',
  ],
  429: ['too_many_requests'],
  501: ['interaction_not_offered'],
  502: [
    'node_not_running',
    'peer_refused',
    'peer_unreachable',
    'peering_answer_invalid',
    'peering_failed',
    'proxy_failed',
    'rate_probe_failed',
    'receiver_invalid',
    'receiver_unreachable',
  ],
  503: ['audit_store_unavailable', 'authorization_server_unavailable', 'console_unavailable', 'dependency_unavailable', 'grant_busy', 'read_throttled'],
};

describe('the catalogs of errors', () => {
  it('answer every code with the status it had on the wire, and no other code', () => {
    const byStatus: Record<number, string[]> = {};
    for (const e of entriesOf()) byStatus[e.status] = [...new Set([...(byStatus[e.status] ?? []), e.code])].sort();
    expect(byStatus).toEqual(WIRE);
  });

  it('hold every code and status the integration tests assert (API Gateway answers its own, infra/gateway-responses.json)', () => {
    const gateway = readFileSync(join(ROOT, 'infra/gateway-responses.json'), 'utf8');
    const known = new Set([...entriesOf().map((e) => `${e.status} ${e.code}`), ...[...gateway.matchAll(/"code": "([a-z_]+)"/g)].map((m) => m[1])]);
    const dir = join(ROOT, 'test/integration');
    const asserted = readdirSync(dir).flatMap((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      const pairs = [
        ...[...text.matchAll(/status: (\d{3}), code: '([a-z_]+)'/g)].map((m) => [m[1], m[2]]),
        ...[...text.matchAll(/code: '([a-z_]+)', status: (\d{3})/g)].map((m) => [m[2], m[1]]),
        ...[...text.matchAll(/\[(\d{3}), '([a-z_]+)'\]/g)].map((m) => [m[1], m[2]]),
      ];
      return pairs.filter(([status]) => Number(status) >= 400).map(([status, code]) => ({ name, status, code }));
    });
    expect(asserted.length).toBeGreaterThan(20);
    const unknown = asserted.filter(({ status, code }) => !known.has(`${status} ${code}`) && !known.has(code));
    expect(unknown).toEqual([]);
  });

  it('are the only place an error is made: no code or status is written at a throw site', () => {
    const catalogFiles = new Set(Object.values(CATALOGS).map((c) => c.file));
    const inline = FILES.filter((f) => f.path !== 'lib/api/http/errors.ts' && f.path !== 'lib/shared/errors.ts').flatMap((f) =>
      [...f.text.matchAll(/new (DomainError|HttpError)\(/g)].map(() => f.path),
    );
    // Nor is a problem written by hand: problemResponse answers a catalog's error.
    inline.push(...FILES.filter((f) => f.path !== 'lib/api/http/problem.ts' && /\bproblem\(\d{3}, '/.test(f.text)).map((f) => f.path));
    expect(inline).toEqual([]);
    const uncatalogued = FILES.filter((f) => /errorCatalog\(/.test(f.text) && !catalogFiles.has(f.path) && f.path !== 'lib/shared/errors.ts');
    expect(
      uncatalogued.map((f) => f.path),
      'a catalog missing from infra/errors-table.ts',
    ).toEqual([]);
  });

  it('have no entry that nothing throws', () => {
    // Used: named outside its catalog (a call, or an entry passed to a function that throws it),
    // not counting the OpenAPI document, which only describes.
    const throwing = FILES.filter((f) => f.path !== 'lib/api/openapi.ts');
    const dead = entriesOf().filter(({ name, key, file }) => !throwing.some((f) => f.path !== file && new RegExp(`\\b${name}\\.${key}\\b`).test(f.text)));
    expect(dead.map((e) => `${e.name}.${e.key}`)).toEqual([]);
  });

  it('give each Admin route its documented problems: every code under its catalog status, and no other', () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>> };
    for (const op of signedRoutes) {
      const responses = doc.paths[op.path][op.method].responses;
      for (const [status, entries] of routeProblems(op)) {
        const documented = [...(responses[status]?.description ?? '').matchAll(/`([a-z_]+)` \(/g)].map((m) => m[1]);
        expect(documented, `${op.id} ${status}`).toEqual(entries.map((e) => e.code));
      }
      // A route's own problems (the shared ones are references) come from its catalog entries alone.
      const own = Object.keys(responses).filter((s) => Number(s) >= 400 && responses[s].description !== undefined);
      expect(own, op.id).toEqual([...routeProblems(op).keys()].map(String));
    }
  });

  it(`are tabled in ${DOC} as they are (npx tsx infra/errors-table.ts writes the table again)`, () => {
    const doc = readFileSync(join(ROOT, DOC), 'utf8');
    expect(doc).toContain(START);
    expect(doc).toContain(END);
    expect(doc).toBe(docWithTable(doc));
  });
});
