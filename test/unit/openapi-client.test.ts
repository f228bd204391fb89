import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';
import { openApiDocument } from '../../lib/api/openapi';
import { clientDir, README_CLIENT } from '../readers/typed-client';

// A client's code against the types openapi-typescript generates from the document: were a named
// type missing, another shape or loosely typed, a `same` or a `@ts-expect-error` would fail. That
// bodies and responses refer to the named types is checked on the document itself.
const CLIENT = `
import type { components, operations, paths } from './admin-api';

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Same<A, B>) => proof;
type Schemas = components['schemas'];
type CreateAsset = paths['/assets']['post'];

same<CreateAsset['requestBody']['content']['application/json'], Schemas['CreateAssetRequest']>(true);
same<CreateAsset['responses'][201]['content']['application/json'], Schemas['Asset']>(true);
same<operations['createAsset']['responses'][409]['content']['application/problem+json'], Schemas['Problem']>(true);
same<operations['listAssets']['responses'][200]['content']['application/json'], Schemas['AssetPage']>(true);
same<Schemas['AssetPage']['items'][number], Schemas['Asset']>(true);
same<Schemas['PaymentIntent']['receivedAmount'], Schemas['Amount']>(true);

export const body: Schemas['CreateAssetRequest'] = { code: 'USD', scale: 2, liquidityThreshold: '100000' };
// @ts-expect-error scale is an integer
export const stringScale: Schemas['CreateAssetRequest'] = { code: 'USD', scale: '2' };
// @ts-expect-error code is required
export const noCode: Schemas['CreateAssetRequest'] = { scale: 2 };
export const asset: Schemas['Asset'] = { id: '7b0e5a8e-3f0c-4c43-9d6a-0f8f2b7c9e11', code: 'USD', scale: 2, createdAt: '2026-01-01T00:00:00.000Z' };
export const header: operations['createAsset']['parameters']['header'] = { 'Idempotency-Key': 'create-usd-1' };
export const state: Schemas['Payment']['state'] = 'completed';
// @ts-expect-error not a payment state
export const lost: Schemas['Payment']['state'] = 'lost';
export const problemCode = (p: Schemas['Problem']): string => p.code;
type ListQuery = NonNullable<operations['listAssets']['parameters']['query']>;
export const five: ListQuery = { limit: 5 };
// @ts-expect-error limit is an integer, not query text
export const text: ListQuery = { limit: '5' };
`;

describe('a client generated from the OpenAPI document', () => {
  // tsc with Node's types takes about 20 s on two busy cores.
  it("has named, strictly typed bodies, integer query parameters and responses, and the README's openapi-fetch client compiles (tsc --strict)", {
    timeout: 90_000,
  }, async () => {
    const dir = await clientDir(openApiDocument());
    try {
      await writeFile(join(dir, 'client.ts'), CLIENT);
      await writeFile(join(dir, 'admin.mts'), README_CLIENT);
      const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
      const options = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--types', 'node'];
      // tsc reports on stdout; a failure keeps it for the assertion's message.
      const errors = await promisify(execFile)(process.execPath, [tsc, ...options, 'client.ts', 'admin.mts'], { cwd: dir }).then(
        () => '',
        (failed: { stdout: string }) => failed.stdout,
      );
      expect(errors).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
