import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../infra/local/start/serverless-config';
import { unzip } from '../infra/local/tools/zip';

// Every function's deployment bundle, as `serverless package` builds it: its size, which AWS
// clients it carries, and how long Node takes to load it (module init, as a cold start begins),
// the median of five fresh processes.
const SETTINGS = {
  MAIN_TABLE: 't',
  RATES_TABLE: 't',
  IDEMPOTENCY_TABLE: 't',
  WEBHOOK_EVENTS_TABLE: 't',
  AUTH_TABLE: 't',
  EVENT_BUS_NAME: 'b',
  ILP_ADDRESS: 'test.bench',
  PAYMENTS_QUEUE_URL: 'http://q',
  WEBHOOK_QUEUE_URL: 'http://q',
  WEBHOOK_PARKING_QUEUE_URL: 'http://q',
  ADMIN_API_SECRET: 'bench-secret-0123456789abcdef',
  WALLET_ADDRESS_URL: 'https://wallet.example',
  AUTH_SERVER_URL: 'https://auth.example',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'x',
  AWS_SECRET_ACCESS_KEY: 'x',
  AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING: '1',
};

export async function measureBundles(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    await promisify(execFile)(join(ROOT, 'node_modules/.bin/serverless'), ['package', '--package', dir, '--stage', 'bench'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ILP_ADDRESS: 'test.bench',
        WALLET_ADDRESS_URL: 'https://wallet.example',
        AUTH_SERVER_URL: 'https://auth.example',
        AWS_ACCESS_KEY_ID: 'dummy',
        AWS_SECRET_ACCESS_KEY: 'dummy',
        SLS_TELEMETRY_DISABLED: '1',
      },
    });
    const rows: Array<{ name: string; kb: number; ms: number; clients: string }> = [];
    for (const zip of readdirSync(dir).filter((f) => f.endsWith('.zip'))) {
      const [code] = [...unzip(join(dir, zip)).entries()].filter(([name]) => name.endsWith('.js')).map(([, body]) => body);
      const file = join(dir, `${zip}.cjs`);
      writeFileSync(file, code);
      const text = code.toString('latin1');
      const clients = [
        ['DynamoDB_20120810', 'DynamoDB'],
        ['AmazonSQS', 'SQS'],
        ['AWSEvents', 'EventBridge'],
      ]
        .filter(([mark]) => text.includes(mark))
        .map(([, n]) => n);
      const times = Array.from({ length: 5 }, () =>
        Number(
          execFileSync(process.execPath, ['-e', `const t = performance.now(); require(${JSON.stringify(file)}); console.log(performance.now() - t)`], {
            env: { ...process.env, ...SETTINGS },
          })
            .toString()
            .trim()
            .split('\n')
            .pop(),
        ),
      ).sort((a, b) => a - b);
      rows.push({ name: zip.replace(/\.zip$/, ''), kb: code.length / 1024, ms: times[2], clients: clients.join('+') || '-' });
    }
    rows.sort((a, b) => a.kb - b.kb);
    const width = Math.max(...rows.map((r) => r.name.length));
    return [
      `${'function'.padEnd(width)}  bundle KB  init ms  AWS clients`,
      ...rows.map((r) => `${r.name.padEnd(width)}  ${r.kb.toFixed(0).padStart(9)}  ${r.ms.toFixed(1).padStart(7)}  ${r.clients}`),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
