import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';
import { openApiDocument } from '../../lib/api/openapi';
import { webhookEvents } from '../../lib/webhooks/catalog';

// The Admin API's OpenAPI document: what standard tools require of it, and the contract it states.
interface OperationDoc {
  operationId: string;
  tags: string[];
  security?: unknown[];
  parameters: Array<{ $ref?: string; in?: string }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { $ref?: string; description?: string; content?: Record<string, { schema: { $ref?: string } }> }>;
}

const doc = openApiDocument();
const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, path, method, op: op as OperationDoc })),
);
const signed = operations.filter(({ path }) => path !== '/openapi.json');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
}

describe('the OpenAPI document', () => {
  it('passes Redocly lint (npm run lint:openapi) with no problem', async () => {
    const lint = promisify(execFile)(join(ROOT, 'node_modules/.bin/tsx'), ['infra/openapi-lint.ts', '--format', 'json'], { cwd: ROOT });
    // A failed lint exits non-zero: its report is on stdout all the same.
    const { stdout } = await lint.catch((failed: { stdout: string }) => failed);
    const report = JSON.parse(stdout) as LintReport;
    expect(report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });

  it('gives every operation a camelCase operationId and one declared tag', () => {
    const declared = doc.tags.map((t) => t.name);
    for (const { route, op } of operations) {
      expect(op.operationId, route).toMatch(/^[a-z][a-zA-Z]+$/);
      expect(op.tags, route).toHaveLength(1);
      expect(declared, route).toContain(op.tags[0]);
    }
    expect(new Set(operations.map(({ op }) => op.operationId)).size).toBe(operations.length);
  });

  it('names every request body and response schema as a component', () => {
    for (const { route, op } of operations) {
      const media = [...Object.values(op.requestBody?.content ?? {}), ...Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {}))];
      for (const { schema } of media) expect(schema.$ref, route).toMatch(/^#\/components\/schemas\/[A-Z]\w+$/);
    }
  });

  it('signs every route but GET /openapi.json', () => {
    expect(doc.security).toEqual([{ signature: [] }]);
    expect(doc.components.securitySchemes.signature).toMatchObject({ type: 'apiKey', in: 'header', name: 'signature' });
    expect(doc.paths['/openapi.json'].get).toMatchObject({ security: [] });
    for (const { route, op } of signed) expect(op.security, route).toBeUndefined();
  });

  it("states each route's 404 and, on POST, the Idempotency-Key header and its 409 and 422 (POST /tenants: the header's 400, as its answer holds secrets)", () => {
    const refusesKey = 'POST /tenants';
    expect(signed.map((s) => s.route)).toContain(refusesKey);
    for (const { route, path, method, op } of signed) {
      if (path.includes('{')) expect(op.responses['404']?.description, route).toContain('`not_found`');
      const honoursKey = op.parameters.some((p) => p.$ref === '#/components/parameters/IdempotencyKey');
      expect(honoursKey, route).toBe(method === 'post' && route !== refusesKey);
      if (route === refusesKey) expect(op.responses['400']?.description, route).toContain('`idempotency_key_refused`');
      if (method !== 'post' || route === refusesKey) continue;
      expect(op.responses['409']?.description, route).toContain('`idempotency_key_in_progress`');
      expect(op.responses['422']?.description, route).toContain('`idempotency_key_reused`');
    }
  });

  it("describes every webhook event type of the catalog: its envelope, its data's schema and the signature headers", () => {
    const hooks = doc.webhooks as Record<string, { post: OperationDoc }>;
    expect(Object.keys(hooks)).toEqual(Object.keys(webhookEvents));
    expect(Object.keys(hooks)).toEqual(
      expect.arrayContaining(['payment.created', 'payment_intent.completed', 'asset.liquidity_low', 'liquidity_withdrawal.voided']),
    );
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, { $ref?: string; const?: string }> }>;
    for (const [type, { post }] of Object.entries(hooks)) {
      expect(post.operationId, type).toMatch(/^[a-z][a-zA-Z]+Webhook$/);
      expect(post.parameters.map((p) => p.$ref)).toEqual(['WebhookId', 'WebhookTimestamp', 'WebhookSignature'].map((n) => `#/components/parameters/${n}`));
      const ref = post.requestBody!.content['application/json'].schema.$ref!;
      const body = schemas[ref.split('/').at(-1)!];
      expect(Object.keys(body.properties), type).toEqual(['id', 'type', 'createdAt', 'data']);
      expect(body.properties.type.const, type).toBe(type);
    }
    const dataOf = (type: string) => schemas[hooks[type].post.requestBody!.content['application/json'].schema.$ref!.split('/').at(-1)!].properties.data.$ref;
    expect(dataOf('payment.completed')).toBe('#/components/schemas/Payment');
    expect(dataOf('payment_intent.created')).toBe('#/components/schemas/PaymentIntent');
    expect(dataOf('peer.liquidity_low')).toBe('#/components/schemas/PeerWithLiquidity');
    expect(dataOf('liquidity_withdrawal.posted')).toBe('#/components/schemas/LiquidityWithdrawal');
  });

  it('lists the three local nodes and a deploy, whose URL is templated', () => {
    expect(doc.servers.map((s) => s.url)).toEqual([
      'http://localhost:3001',
      'http://localhost:4001',
      'http://localhost:6001',
      'https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}',
    ]);
  });
});
