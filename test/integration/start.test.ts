import { spawn, execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators';
import { ROOT } from '../../infra/local/serverless-config';

// `npm start` as a user runs it: ready banner, a working Admin API, and a signal to the process
// group stops every child, DynamoDB Local's JVM included.
function javaPids(port: number): number[] {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*-port ${port}`]).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function startAndStop(signal: NodeJS.Signals) {
  const ports = { ADMIN_PORT: await freePort(), OPEN_PAYMENTS_PORT: await freePort(), DYNAMODB_PORT: await freePort(), SQS_PORT: await freePort(), EVENTBRIDGE_PORT: await freePort(), FSP_PORT: await freePort() };
  const env = { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), ADMIN_API_SECRET: 'start-test-secret-123456' };
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const deadline = Date.now() + 20_000;
  while (!/ready in/.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not become ready within 20 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(output).toContain(`http://localhost:${ports.ADMIN_PORT}`);
  const openapi = await fetch(`http://localhost:${ports.ADMIN_PORT}/openapi.json`);
  expect(openapi.status).toBe(200);
  expect(javaPids(ports.DYNAMODB_PORT).length).toBeGreaterThan(0);
  process.kill(-child.pid!, signal);
  await exited;
  for (let i = 0; i < 50 && javaPids(ports.DYNAMODB_PORT).length; i++) await new Promise((r) => setTimeout(r, 100));
  expect(javaPids(ports.DYNAMODB_PORT)).toEqual([]);
}

describe('npm start', () => {
  it('is ready within 20 s and SIGINT stops everything', () => startAndStop('SIGINT'), 40_000);
  it('SIGTERM stops everything too', () => startAndStop('SIGTERM'), 40_000);
});
