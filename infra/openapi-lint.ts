// `npm run lint:openapi [-- <redocly lint options>]`: lints the Admin API's OpenAPI document, as
// GET /openapi.json serves it, with Redocly's CLI and redocly.yaml. Exits non-zero on any problem.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../lib/api/openapi';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
let status: number;
try {
  const file = join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(openApiDocument(), null, 2));
  const redocly = spawn(join(root, 'node_modules/.bin/redocly'), ['lint', '--config', join(root, 'redocly.yaml'), ...process.argv.slice(2), file], {
    stdio: 'inherit',
    // No usage report and no update check: this runs in tests and CI.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  const [code] = (await once(redocly, 'close')) as [number | null];
  status = code ?? 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.exit(status);
