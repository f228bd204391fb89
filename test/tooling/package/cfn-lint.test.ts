import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { STACKS } from '../../../infra/serverless/nested-stacks.cjs';
import { BACKSTOP_MS, loadPackaged, packagedDir, run } from './packaged';

// cfn-lint over the three templates.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('cfn-lint', () => {
  it(
    'passes cfn-lint: no error, and no warning but those .cfnlintrc.yaml lists with their reasons',
    async () => {
      const files = ['cloudformation-template-update-stack.json', ...STACKS.map((s: { file: string }) => s.file)];
      const lint = await run(
        'cfn-lint',
        files.map((f) => join(packagedDir, f)),
        process.env,
      );
      expect({ code: lint.code, output: lint.output }).toEqual({ code: 0, output: '' });
    },
    BACKSTOP_MS,
  );
});
