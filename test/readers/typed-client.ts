import { readFileSync } from 'node:fs';
import { mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { ROOT } from '../../infra/local/start/serverless-config';

// docs/api.md: the typed openapi-fetch client, as written.
export const README_CLIENT = readFileSync(join(ROOT, 'docs/api.md'), 'utf8').match(/```ts\n(\/\/ admin\.mts[\s\S]*?)```/)![1];

// A folder with the generated types (admin-api.d.ts) and this project's node_modules, for a client.
export async function clientDir(document: unknown) {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-client-'));
  await writeFile(join(dir, 'admin-api.d.ts'), astToString(await openapiTS(document as never)));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}
