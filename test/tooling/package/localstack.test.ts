import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadService, ROOT } from '../../../infra/local/start/serverless-config';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { STACKS } from '../../../infra/serverless/nested-stacks.cjs';
import { BACKSTOP_MS, deployed, loadPackaged, nested, packagedDir, type Resource, slsPackage, type Template, template } from './packaged';

// A deploy to LocalStack's free image: only the services it serves, and nested stacks it never has to update.
// The production template is packaged once for the run (./packaged.ts).

const require = createRequire(import.meta.url);

beforeAll(loadPackaged, BACKSTOP_MS);

describe('LocalStack', () => {
  // The plugin of `file`, run over `resources` as packaging runs it, with `settings` in the environment.
  function runPlugin(file: string, resources: Record<string, Resource>, settings: Record<string, string>) {
    const saved = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
    Object.assign(process.env, settings);
    try {
      const Plugin = require(join(ROOT, 'infra/serverless', file));
      const service = {
        service: 'payment-service',
        provider: { stage: 'local', environment: loadService('local').environment, compiledCloudFormationTemplate: { Resources: resources, Outputs: {} } },
      };
      const plugin = new Plugin({ service, getProvider: () => ({}), classes: { Error } }, { stage: 'local' });
      plugin.hooks['after:aws:package:finalize:mergeCustomProviderResources']();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    return resources;
  }

  it("deploys with only the services LocalStack's free image serves: deploy.sh's settings leave WAF, AWS Backup and CodeDeploy out", () => {
    const compose = readFileSync(join(ROOT, 'localstack/docker-compose.yml'), 'utf8');
    const served = /SERVICES=([\w,]+)/.exec(compose)![1].split(',');
    const SERVICE: Record<string, string> = {
      ApiGateway: 'apigateway',
      Lambda: 'lambda',
      DynamoDB: 'dynamodb',
      SQS: 'sqs',
      Events: 'events',
      IAM: 'iam',
      Logs: 'logs',
      SecretsManager: 'secretsmanager',
      CloudWatch: 'cloudwatch',
      SNS: 'sns',
      KMS: 'kms',
      S3: 's3',
      CloudFormation: 'cloudformation',
      Cognito: 'cognito-idp',
      WAFv2: 'wafv2',
      Backup: 'backup',
      CodeDeploy: 'codedeploy',
    };
    const types = [...Object.values(template.Resources), ...Object.values(nested).flatMap((t) => Object.values(t.Resources))].map((r) => r.Type.split('::')[1]);
    expect([...new Set(types)].filter((t) => !SERVICE[t])).toEqual([]);
    expect([...new Set(types.map((t) => SERVICE[t]))].filter((x) => !served.includes(x)).sort()).toEqual(['backup', 'codedeploy', 'cognito-idp', 'wafv2']);
    const script = readFileSync(join(ROOT, 'localstack/deploy.sh'), 'utf8');
    const settings = Object.fromEntries([...script.matchAll(/\b(WAF_ENABLED|BACKUPS_ENABLED|CONSOLE_ENABLED|TRAFFIC_SHIFT)=(\w+)/g)].map((m) => [m[1], m[2]]));
    expect(settings).toEqual({ WAF_ENABLED: 'false', BACKUPS_ENABLED: 'false', CONSOLE_ENABLED: 'false', TRAFFIC_SHIFT: 'none' });
    // Without the sign-in: no user pool, no authorizer, and the console's API closed to all but IAM.
    const withoutConsole = runPlugin('console.cjs', structuredClone(template.Resources), settings);
    expect(Object.values(withoutConsole).filter((r) => /Cognito|Authorizer/.test(r.Type))).toEqual([]);
    expect(
      Object.values(withoutConsole)
        .filter((r) => r.Type === 'AWS::ApiGateway::Method')
        .map((r) => r.Properties.AuthorizationType),
    ).not.toContain('COGNITO_USER_POOLS');
    expect(withoutConsole.ConsoleLambdaFunction.Properties.Environment.Variables.CONSOLE_SIGN_IN_URL).toBeUndefined();
    const withStages = () => Object.fromEntries(Object.entries(structuredClone(deployed)).filter(([, r]) => !/WAFv2|Backup/.test(r.Type)));
    const types2 = (r: Record<string, Resource>) => Object.values(r).map((x) => x.Type);
    expect(types2(runPlugin('edge.cjs', withStages(), settings)).filter((t) => t.startsWith('AWS::WAFv2'))).toEqual([]);
    expect(types2(runPlugin('backup.cjs', withStages(), settings)).filter((t) => t.startsWith('AWS::Backup'))).toEqual([]);
    // As deployed to AWS, the same plugins add them.
    expect(types2(runPlugin('edge.cjs', withStages(), { WAF_ENABLED: 'true' }))).toContain('AWS::WAFv2::WebACL');
    expect(types2(runPlugin('backup.cjs', withStages(), { BACKUPS_ENABLED: 'true' }))).toContain('AWS::Backup::BackupPlan');
  });
});

// LocalStack's free image creates a nested stack but cannot update one (localstack/README.md).
describe('LocalStack and the nested stacks', () => {
  it(
    "leaves the Open Payments and monitoring templates as they were when only the servers' URLs change (the deploy again that LocalStack asks for)",
    async () => {
      // The same code: packaged with the run's package's bundles, not bundled again.
      const urls = { WALLET_ADDRESS_URL: 'https://pay.example.org', AUTH_SERVER_URL: 'https://auth.pay.example.org' };
      const moved = await slsPackage(urls, undefined, packagedDir);
      expect(moved.code, moved.output).toBe(0);
      const again: Template = JSON.parse(readFileSync(join(moved.dir, 'cloudformation-template-update-stack.json'), 'utf8'));
      expect(again.Resources.ResourceServerApiDomain.Properties.DomainName).toBe('pay.example.org'); // the service's stack did change
      // (Not the Deployments stack: on AWS it holds each function's version, new with any change to
      // its code or settings; LocalStack deploys with TRAFFIC_SHIFT=none, where it holds only the permissions.)
      for (const { name } of (STACKS as { name: string }[]).filter((s) => s.name !== 'Deployments'))
        expect(again.Resources[name].Metadata.Key, name).toBe(template.Resources[name].Metadata.Key);
    },
    BACKSTOP_MS,
  );
});
