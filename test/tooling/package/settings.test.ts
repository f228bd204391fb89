import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadService, ROOT } from '../../../infra/local/start/serverless-config';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { build as buildAlarms } from '../../../infra/serverless/alarms.cjs';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { declaredSettings } from '../../../infra/serverless/deploy-checks.cjs';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { SETTINGS } from '../../../infra/serverless/settings.cjs';
import { alarmsOf, BACKSTOP_MS, deployed, loadPackaged, PRODUCTION, packageEnv, REQUIRED, refusal, run, STAGE, slsPackage, template } from './packaged';

// The deploy's settings: each documented and checked, and a bad one refused before anything is built.
// The production template is packaged once for the run (./packaged.ts).

describe('settings', () => {
  it('lets a deployer set every setting docs/configuration.md lists, and checks every one the template reads', () => {
    const section = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    // The names in each row's first cell (a row may hold several: `API_THROTTLE_RATE`, `API_THROTTLE_BURST`).
    const listed = [...section.matchAll(/^\| ([^|]+)\|/gm)].flatMap((row) => [...row[1].matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]));
    const local = /_PORT$|^FSP_|^LOCAL_|^PROXY_|^LOG_LEVEL$|^CONSOLE_JWKS$|^(ADMIN_API_SECRET|WEBHOOK_SECRET|IDP_SECRET|OPEN_PAYMENTS_CLIENT_KEY_FILE)$/; // the local run's own, and the secrets (Secrets Manager)
    const environment = loadService(STAGE).environment;
    // Every setting the stack reads is checked before packaging (infra/serverless/settings.cjs), and documented.
    const checked = Object.keys(SETTINGS);
    for (const name of declaredSettings(ROOT)) expect(checked, name).toContain(name);
    for (const name of checked) expect(listed, name).toContain(name);
    // What the functions read is in their environment; what shapes the stack is read by the
    // declarations (`${env:NAME, default}`) or the plugins (`setting(NAME)`).
    const plugins = readdirSync(join(ROOT, 'infra/serverless'))
      .filter((f) => f !== 'settings.cjs')
      .map((f) => readFileSync(join(ROOT, 'infra/serverless', f), 'utf8'))
      .join('\n');
    for (const name of listed.filter((n) => !local.test(n))) {
      if (SETTINGS[name]?.functions || !SETTINGS[name]) expect(Object.keys(environment), name).toContain(name);
      else expect(declaredSettings(ROOT).includes(name) || new RegExp(`\\b${name}\\b`).test(plugins), name).toBe(true);
    }
  });
});

// Every one of these packaged (exit 0) and went into the template as it was.
describe('settings that fail closed, before anything is built', () => {
  it(
    'refuses to package or deploy without a stage, or without a required setting, naming it',
    async () => {
      expect((await slsPackage({}, [])).output).toContain('"provider.stage"');
      // The Framework names every variable it cannot resolve at once.
      const required = await slsPackage(Object.fromEntries(Object.keys(REQUIRED).map((name) => [name, undefined])));
      expect(required.code).not.toBe(0);
      for (const name of Object.keys(REQUIRED)) expect(required.output, name).toContain(`provider.environment.${name}`);
    },
    BACKSTOP_MS,
  );

  // A bad value packaged with status 0 and then broke every function at its cold start.
  it(
    'refuses settings the functions would refuse, naming every bad one',
    async () => {
      const bad = { QUOTE_LIFETIME_SECS: 'abc', WEBHOOK_TIMEOUT_SECS: '60', SLIPPAGE: '5', WALLET_ADDRESS_URL: 'notaurl', ILP_ADDRESS: 'not an address' };
      const refused = await slsPackage(bad);
      expect(refused.code).not.toBe(0);
      for (const name of Object.keys(bad)) expect(refused.output, name).toContain(`${name}:`);
      expect(existsSync(refused.dir)).toBe(false); // refused before anything was built
    },
    BACKSTOP_MS,
  );

  it("refuses each of the review's bad values, naming its setting", () => {
    const bad = {
      API_THROTTLE_RATE: 'abc',
      CONNECTOR_THROTTLE_BURST: '-1',
      ITERATOR_AGE_ALARM_SECS: 'abc',
      OLDEST_MESSAGE_ALARM_SECS: 'abc',
      API_LATENCY_ALARM_MS: '-5',
      ALARM_EMAIL: 'not-an-email',
      ALARM_TOPIC_ARN: 'garbage',
      ADMIN_ALLOWED_CIDRS: '999.1.1.1/99',
      LOG_RETENTION_DAYS: '10',
      KMS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555', // another region
      GRANT_RATE_LIMIT_PER_5MIN: '5',
      WORKER_RESERVED_CONCURRENCY: '0',
    };
    const refused = refusal(bad);
    expect(refused).toContain('Settings that this deploy cannot run with');
    for (const name of Object.keys(bad)) expect(refused, name).toMatch(new RegExp(`^ *${name}: `, 'm'));
    expect(refused).toContain('ADMIN_ALLOWED_CIDRS: 999.1.1.1/99 is not a CIDR');
    expect(refused).toContain("KMS_KEY_ARN: must be in the stack's region, eu-west-1 (not us-east-1)");
    // A CIDR parsed, not matched: host bits below the prefix are refused with what was meant.
    expect(refusal({ ADMIN_ALLOWED_CIDRS: '203.0.113.7/24' })).toContain('did you mean 203.0.113.0/24?');
  });

  // 0.0.0.0/0 silently opened the money-moving Admin API to the internet.
  it('refuses an Admin API open to every address, or with no list, unless ADMIN_OPEN_TO_INTERNET=1 says so', () => {
    for (const everywhere of ['0.0.0.0/0', '10.0.0.0/8, ::/0'])
      expect(refusal({ ADMIN_ALLOWED_CIDRS: everywhere }), everywhere).toMatch(/ADMIN_ALLOWED_CIDRS: (0\.0\.0\.0|::)\/0 is every address/);
    expect(refusal({ ADMIN_ALLOWED_CIDRS: undefined })).toContain('ADMIN_ALLOWED_CIDRS: the networks');
    // Said on purpose, the Admin API's list is no problem (another bad value shows the checks ran).
    const open = refusal({ ADMIN_ALLOWED_CIDRS: '0.0.0.0/0', ADMIN_OPEN_TO_INTERNET: '1', API_THROTTLE_RATE: 'abc' });
    expect(open).toContain('API_THROTTLE_RATE:');
    expect(open).not.toContain('ADMIN_ALLOWED_CIDRS');
  });

  it(
    'refuses a stage whose alarms reach nobody, unless that is said on purpose; ALARM_TOPIC_ARN takes every alarm',
    async () => {
      await loadPackaged(); // this one test reads the template: the others package on their own meanwhile
      expect(refusal({ ALARM_EMAIL: undefined })).toContain('ALARM_EMAIL or ALARM_TOPIC_ARN');
      expect(template.Conditions.HasAlarmEmail).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [PRODUCTION.ALARM_EMAIL, ''] }] });
      const resources = Object.fromEntries(Object.entries(structuredClone(deployed)).filter(([, r]) => !/^AWS::CloudWatch::/.test(r.Type)));
      const topic = 'arn:aws:sns:eu-west-1:123456789012:ops';
      buildAlarms(resources, {
        stage: STAGE,
        namespace: 'PaymentService',
        serviceName: 'payment-service',
        parkingQueues: ['WebhookParkingQueue'],
        oldestMessageSecs: 600,
        iteratorAgeSecs: 60,
        apiP99Ms: 2000,
        api4xx: 500,
        paymentsFailed: 1,
        webhookFailures: 10,
        topic,
      });
      const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
      expect(alarms.length).toBe(alarmsOf().length);
      for (const a of alarms) expect(a.Properties.AlarmActions).toEqual([topic]);
    },
    BACKSTOP_MS,
  );

  it(
    'says `npm run package` is for CI, and refuses to package any other stage with it',
    async () => {
      const refused = await run('npm', ['run', '-s', 'package'], { ...packageEnv, STAGE: 'prod' });
      expect(refused.code).toBe(2);
      expect(refused.output).toContain('npm run package is for CI');
      expect(refused.output).toContain('npx serverless package --stage prod');
      const script = readFileSync(join(ROOT, 'infra/ci-package.sh'), 'utf8');
      expect(script).not.toMatch(/ALARMS_UNSUBSCRIBED|ADMIN_OPEN_TO_INTERNET/); // it opens nothing and silences nothing
    },
    BACKSTOP_MS,
  );
});
