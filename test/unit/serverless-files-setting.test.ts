import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// LOCAL_SERVERLESS_FILES is read as infra/local/start/serverless-config.ts loads: a bad one stops
// the process with a line that names the setting, not a bare ENOENT or SyntaxError.
const load = () => import('../../infra/local/start/serverless-config');
afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('LOCAL_SERVERLESS_FILES', () => {
  it('names the setting when its file is missing, not JSON, or not an object of files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sls-files-'));
    writeFileSync(join(dir, 'broken.json'), '{');
    writeFileSync(join(dir, 'list.json'), '[]');
    for (const [file, message] of [
      [join(dir, 'missing.json'), /LOCAL_SERVERLESS_FILES names .*missing\.json, which is not a readable JSON file: ENOENT/],
      [join(dir, 'broken.json'), /LOCAL_SERVERLESS_FILES names .*broken\.json, which is not a readable JSON file/],
      [join(dir, 'list.json'), /LOCAL_SERVERLESS_FILES names .*list\.json, which holds no object of serverless.yml's files/],
    ] as const) {
      vi.resetModules();
      vi.stubEnv('LOCAL_SERVERLESS_FILES', file);
      await expect(load()).rejects.toThrow(message);
    }
  });
});
