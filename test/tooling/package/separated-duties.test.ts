import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { STACKS } from '../../../infra/serverless/nested-stacks.cjs';
import {
  BACKSTOP_MS,
  calledFunction,
  deployed,
  functionRoles,
  loadPackaged,
  nested,
  ofType,
  PRODUCTION,
  packagedDir,
  type Resource,
  refusal,
  STAGE,
  template,
} from './packaged';

// Issue 47's keys, tables and deploys as a bank's reviewer reads them in the production template:
// keys whose administrators never use them, tables only the service reads, backups that outlive the
// data key and that nobody deletes, and deploys that shift traffic and roll back by themselves.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

const ROOT = { AWS: { 'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:root` } };
const KEY_ADMIN = PRODUCTION.KEY_ADMIN_ROLE_ARN;
const DEPLOYER = PRODUCTION.DEPLOY_ROLE_ARN;
const BREAK_GLASS = PRODUCTION.BREAK_GLASS_ROLE_ARNS;
const USES = /^kms:(Encrypt|Decrypt|ReEncrypt|GenerateDataKey|CreateGrant)|^kms:\*$|^\*$/;
const statementsOf = (key: string) => Object.fromEntries(template.Resources[key].Properties.KeyPolicy.Statement.map((s: any) => [s.Sid, s]));
const arnOf = (id: string) => ({ 'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/payment-service/${STAGE}/payment-service-${STAGE}-${id}` });
const byJson = (list: unknown[]) => [...list].map((x) => JSON.stringify(x)).sort();

describe('keys with separated duties', () => {
  it('keeps the data, the logs and the backups on three keys of their own, each rotated and kept past the stack', () => {
    const KIND: Record<string, string> = {
      'AWS::DynamoDB::Table': 'StageKey',
      'AWS::SQS::Queue': 'StageKey',
      'AWS::SecretsManager::Secret': 'StageKey',
      'AWS::SNS::Topic': 'StageKey',
      'AWS::Events::EventBus': 'StageKey',
      'AWS::Events::Archive': 'StageKey',
      'AWS::Logs::LogGroup': 'LogsKey',
      'AWS::Backup::BackupVault': 'BackupKey',
    };
    const keyOf = (r: Resource) =>
      r.Properties.SSESpecification?.KMSMasterKeyId ??
      r.Properties.KmsMasterKeyId ??
      r.Properties.KmsKeyId ??
      r.Properties.KmsKeyIdentifier ??
      r.Properties.EncryptionKeyArn;
    for (const [type, key] of Object.entries(KIND)) {
      expect(ofType(type).length, type).toBeGreaterThan(0);
      for (const [id, r] of ofType(type)) expect(keyOf(r), id).toEqual({ 'Fn::GetAtt': [key, 'Arn'] });
    }
    expect(
      ofType('AWS::KMS::Key')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['BackupKey', 'LogsKey', 'StageKey']);
    for (const [id, key] of ofType('AWS::KMS::Key')) {
      expect(key, id).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain', Properties: { EnableKeyRotation: true } });
    }
    expect(template.Resources.LogsKeyAlias.Properties.AliasName).toBe(`alias/payment-service-${STAGE}-logs`);
    expect(template.Resources.BackupKeyAlias.Properties.AliasName).toBe(`alias/payment-service-${STAGE}-backups`);
  });

  it('lets only KEY_ADMIN_ROLE_ARN administer each key and DEPLOY_ROLE_ARN keep its configuration, and neither use it', () => {
    for (const [id, key] of ofType('AWS::KMS::Key')) {
      const statements = key.Properties.KeyPolicy.Statement;
      const admin = statements.find((s: any) => s.Sid === 'KeyAdministratorsManageItOnly');
      // The account stays the principal (a role made again under its name gets its access back: the
      // key never becomes unmanageable), narrowed to the one role.
      expect(admin, id).toMatchObject({ Principal: ROOT, Condition: { ArnEquals: { 'aws:PrincipalArn': [KEY_ADMIN] } } });
      expect(admin.Action, id).toEqual(expect.arrayContaining(['kms:PutKeyPolicy', 'kms:DisableKey', 'kms:ScheduleKeyDeletion']));
      const deploy = statements.find((s: any) => s.Sid === 'DeploysKeepItsConfiguration');
      expect(deploy, id).toMatchObject({ Principal: ROOT, Condition: { ArnEquals: { 'aws:PrincipalArn': [DEPLOYER] } } });
      expect(deploy.Action, id).toContain('kms:PutKeyPolicy'); // KMS's lockout check: whoever creates it can put its policy again
      for (const action of ['kms:DisableKey', 'kms:ScheduleKeyDeletion', 'kms:DisableKeyRotation']) expect(deploy.Action, id).not.toContain(action);
      for (const s of [admin, deploy]) for (const action of s.Action) expect(action, `${id} ${s.Sid}`).not.toMatch(USES);
      // Nobody else of the account: every statement for an AWS principal names its roles, or is a service's.
      for (const s of statements) {
        if (s.Principal.Service) continue;
        expect(s.Condition?.ArnEquals?.['aws:PrincipalArn'], `${id} ${s.Sid}`).toBeDefined();
        expect(JSON.stringify(s.Condition), `${id} ${s.Sid}`).not.toContain('ArnLike');
      }
      // And the administrators use it in no statement.
      for (const s of statements.filter((s: any) => [s.Action].flat().some((a: string) => USES.test(a))))
        expect(JSON.stringify(s.Condition ?? {}), `${id} ${s.Sid}`).not.toContain(KEY_ADMIN);
    }
  });

  it("names each function's role by its ARN in the data key's policy, not a path anyone may create roles under", () => {
    const statements = statementsOf('StageKey');
    const functions = statements.TheServicesFunctionRoles;
    expect(functions.Condition.StringEquals).toEqual({ 'kms:CallerAccount': { 'Fn::Sub': `\${AWS::AccountId}` } });
    const roles = functionRoles();
    expect(roles.length).toBeGreaterThan(40);
    expect(byJson(functions.Condition.ArnEquals['aws:PrincipalArn'])).toEqual(byJson(roles.map(([id]) => arnOf(id))));
    for (const [id, role] of roles)
      expect([role.Properties.Path, role.Properties.RoleName], id).toEqual([`/payment-service/${STAGE}/`, `payment-service-${STAGE}-${id}`]);
    // Through DynamoDB, SQS, Secrets Manager and AWS Backup: the deploy role, AWS Backup's and the break-glass roles only.
    expect(statements.ThroughTheStacksServicesOnly.Condition.ArnEquals['aws:PrincipalArn']).toEqual([DEPLOYER, arnOf('BackupRole'), BREAK_GLASS]);
  });

  it('gives each AWS service the key for its own resources only: a source condition on every service statement', () => {
    for (const [id, key] of ofType('AWS::KMS::Key'))
      for (const s of key.Properties.KeyPolicy.Statement.filter((s: any) => s.Principal.Service)) {
        const condition = JSON.stringify(s.Condition ?? {});
        expect(condition, `${id} ${s.Sid}`).toMatch(/aws:SourceAccount|aws:SourceArn|kms:EncryptionContext/);
      }
    const data = statementsOf('StageKey');
    expect(data.EventBridgeForTheStacksBusRulesAndArchive.Condition.ArnLike['aws:SourceArn']).toEqual(
      [`event-bus/payment-service-${STAGE}`, `rule/payment-service-${STAGE}/*`, 'archive/*'].map((r) => ({
        'Fn::Sub': `arn:\${AWS::Partition}:events:\${AWS::Region}:\${AWS::AccountId}:${r}`,
      })),
    );
    const logs = statementsOf('LogsKey');
    expect(Object.keys(logs).sort()).toEqual(['CloudWatchLogsForTheStacksLogGroups', 'DeploysKeepItsConfiguration', 'KeyAdministratorsManageItOnly']);
    expect(logs.CloudWatchLogsForTheStacksLogGroups.Condition.ArnLike['kms:EncryptionContext:aws:logs:arn'][0]).toEqual({
      'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:\${AWS::StackName}-*`,
    });
    // The backup key: AWS Backup's role (and the break-glass roles, to restore), through AWS Backup only.
    const backups = statementsOf('BackupKey');
    expect(Object.keys(backups).sort()).toEqual(['AwsBackupsRoleThroughAwsBackupOnly', 'DeploysKeepItsConfiguration', 'KeyAdministratorsManageItOnly']);
    expect(backups.AwsBackupsRoleThroughAwsBackupOnly.Condition).toEqual({
      StringEquals: {
        'kms:CallerAccount': { 'Fn::Sub': `\${AWS::AccountId}` },
        'kms:ViaService': [{ 'Fn::Sub': `backup.\${AWS::Region}.\${AWS::URLSuffix}` }],
      },
      ArnEquals: { 'aws:PrincipalArn': [arnOf('BackupRole'), BREAK_GLASS] },
    });
  });

  it('refuses a stage other than local without a key administrator or a deploy role, or with one role as both', () => {
    const missing = refusal({ KEY_ADMIN_ROLE_ARN: undefined, DEPLOY_ROLE_ARN: undefined });
    expect(missing).toContain('KEY_ADMIN_ROLE_ARN: the role that administers');
    expect(missing).toContain('DEPLOY_ROLE_ARN: the role CloudFormation deploys the stack as');
    expect(refusal({ KEY_ADMIN_ROLE_ARN: DEPLOYER })).toContain('must be another role than DEPLOY_ROLE_ARN');
    expect(refusal({ BREAK_GLASS_ROLE_ARNS: `${BREAK_GLASS}, arn:aws:iam::123:user/alice` })).toContain('BREAK_GLASS_ROLE_ARNS: arn:aws:iam::123:user/alice');
    expect(refusal({})).toBe('');
  });
});

describe('tables only the service reads', () => {
  it("denies every item, stream, export and restore call on each table to all but the service's roles, AWS Backup's and the break-glass roles", () => {
    const readers = [...functionRoles().map(([id]) => arnOf(id)), arnOf('BackupRole'), BREAK_GLASS];
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables.length).toBe(5);
    for (const [id, table] of tables) {
      const [only, policy] = table.Properties.ResourcePolicy.PolicyDocument.Statement;
      expect(only, id).toMatchObject({ Effect: 'Deny', Principal: '*', Resource: '*' });
      expect(only.Action, id).toEqual(
        expect.arrayContaining([
          'dynamodb:GetItem',
          'dynamodb:Query',
          'dynamodb:Scan',
          'dynamodb:PartiQLSelect',
          'dynamodb:ExportTableToPointInTime',
          'dynamodb:PutItem',
        ]),
      );
      expect(byJson(only.Condition.ArnNotEquals['aws:PrincipalArn']), id).toEqual(byJson(readers));
      // Nobody but the deploy role lifts the policy.
      expect(policy, id).toMatchObject({
        Effect: 'Deny',
        Action: ['dynamodb:PutResourcePolicy', 'dynamodb:DeleteResourcePolicy'],
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': [DEPLOYER] } },
      });
    }
    const stream = template.Resources.MainTable.Properties.StreamSpecification.ResourcePolicy.PolicyDocument.Statement[0];
    expect(stream.Action).toEqual(['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream']);
    expect(byJson(stream.Condition.ArnNotEquals['aws:PrincipalArn'])).toEqual(byJson(readers));
  });
});

describe('backups that outlive the data key and that nobody deletes', () => {
  it('locks the vault, denies deleting a recovery point to everyone, and copies each backup to BACKUP_COPY_VAULT_ARN', () => {
    const vault = template.Resources.BackupVault.Properties;
    expect(vault.LockConfiguration).toEqual({ MinRetentionDays: 35, MaxRetentionDays: 366, ChangeableForDays: 3 });
    const [nobody, deployOnly] = vault.AccessPolicy.Statement;
    expect(nobody).toEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: '*',
        Action: expect.arrayContaining(['backup:DeleteRecoveryPoint', 'backup:UpdateRecoveryPointLifecycle']),
      }),
    );
    expect(nobody.Condition).toBeUndefined();
    expect(deployOnly).toMatchObject({ Effect: 'Deny', Condition: { ArnNotEquals: { 'aws:PrincipalArn': DEPLOYER } } });
    expect(deployOnly.Action).toEqual(expect.arrayContaining(['backup:DeleteBackupVaultLockConfiguration', 'backup:PutBackupVaultAccessPolicy']));
    const [rule] = template.Resources.BackupPlan.Properties.BackupPlan.BackupPlanRule;
    expect(rule.CopyActions).toEqual([{ DestinationBackupVaultArn: PRODUCTION.BACKUP_COPY_VAULT_ARN, Lifecycle: { DeleteAfterDays: 35 } }]);
  });
});

describe('safe deployment', () => {
  const fns = () => ofType('AWS::Lambda::Function');

  it("publishes a version of every function, serves it through its alias, and shifts traffic to a new one by CodeDeploy, rolling back on the new version's errors", () => {
    const aliases = Object.fromEntries(ofType('AWS::Lambda::Alias'));
    const versions = Object.fromEntries(ofType('AWS::Lambda::Version'));
    const groups = Object.fromEntries(ofType('AWS::CodeDeploy::DeploymentGroup'));
    expect(fns().length).toBeGreaterThan(70);
    for (const [id, fn] of fns()) {
      const base = id.replace(/LambdaFunction$/, '');
      const alias = aliases[`${base}LiveAlias`];
      expect(alias.Properties, id).toMatchObject({ FunctionName: fn.Properties.FunctionName, Name: 'live' });
      const version = versions[alias.Properties.FunctionVersion['Fn::GetAtt'][0]];
      expect(version.Properties.FunctionName, id).toBe(fn.Properties.FunctionName);
      expect((alias as Resource & { UpdatePolicy: any }).UpdatePolicy.CodeDeployLambdaAliasUpdate, id).toEqual({
        ApplicationName: { Ref: 'CodeDeployApplication' },
        DeploymentGroupName: { Ref: `${base}CodeDeployGroup` },
      });
      // The errors of the calls through the alias that the new version ran (summed with up to nine
      // other functions' new versions' in one metric math alarm), in the group's stack; the
      // function's own errors alarm (every version's) was the group's: the old version's errors
      // rolled back a good deploy, and the new one's hid among the old one's.
      const [alarm] = groups[`${base}CodeDeployGroup`].Properties.AlarmConfiguration.Alarms.map((a: any) => a.Name.Ref);
      expect(groups[`${base}CodeDeployGroup`].Properties, id).toMatchObject({
        DeploymentConfigName: 'CodeDeployDefault.LambdaCanary10Percent5Minutes',
        AutoRollbackConfiguration: { Enabled: true, Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM'] },
        AlarmConfiguration: { Enabled: true, Alarms: [{ Name: { Ref: alarm } }] },
      });
      const { Properties: watching } = nested.Deployments.Resources[alarm];
      expect(watching, id).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
      const metrics = watching.Metrics.filter((m: any) => m.MetricStat);
      expect(watching.Metrics.find((m: any) => m.ReturnData)).toEqual({
        Id: 'errors',
        Expression: `SUM([${metrics.map((m: any) => m.Id).join(',')}])`,
        ReturnData: true,
      });
      expect(metrics.length).toBeLessThanOrEqual(10);
      expect(
        metrics.filter((m: any) => m.MetricStat.Metric.Dimensions[0].Value === fn.Properties.FunctionName),
        id,
      ).toEqual([
        {
          Id: expect.any(String),
          MetricStat: {
            Metric: {
              Namespace: 'AWS/Lambda',
              MetricName: 'Errors',
              Dimensions: [
                { Name: 'FunctionName', Value: fn.Properties.FunctionName },
                { Name: 'Resource', Value: `${fn.Properties.FunctionName}:live` },
                { Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [alias.Properties.FunctionVersion['Fn::GetAtt'][0], 'Version'] } },
              ],
            },
            Period: 60,
            Stat: 'Sum',
          },
          ReturnData: false,
        },
      ]);
      // It watches the new version before the alias moves to it.
      expect((alias as Resource & { DependsOn: string[] }).DependsOn, id).toContain(alarm);
    }
    // The version waits for its function's update (the Deployments stack does).
    expect(template.Resources.Deployments.DependsOn).toEqual(expect.arrayContaining(fns().map(([id]) => id)));
    expect(deployed[`${fns()[0][0]}ErrorsAlarm`].Type).toBe('AWS::CloudWatch::Alarm');
    expect(deployed.CodeDeployApplication.Properties).toEqual({ ComputePlatform: 'Lambda' });
    const state = JSON.parse(readFileSync(join(packagedDir, 'serverless-state.json'), 'utf8'));
    expect(state.service.provider.versionFunctions).toBe(true);
  });

  it("calls every function through its alias: every route's integration, permission, schedule, queue or stream mapping and secret's rotation", () => {
    const callers = Object.entries(deployed).filter(([, r]) =>
      /^AWS::(ApiGateway::Method|Lambda::Permission|Lambda::EventSourceMapping|Events::Rule|SecretsManager::RotationSchedule)$/.test(r.Type),
    );
    const fnIds = new Set(fns().map(([id]) => id));
    const text = JSON.stringify(callers);
    for (const id of fnIds) {
      expect(text, id).not.toContain(`["${id}","Arn"]`);
      expect(text, id).not.toContain(`\${${id}.Arn}`);
    }
    const called = new Set<string>();
    const walk = (node: any): void => {
      if (Array.isArray(node)) for (const v of node) walk(v);
      else if (node && typeof node === 'object') {
        const fn = node.Ref || node['Fn::GetAtt'] ? calledFunction(node) : undefined;
        if (fn) called.add(fn);
        for (const v of Object.values(node)) walk(v);
      }
    };
    walk(callers);
    for (const [, r] of callers.filter(([, r]) => r.Type === 'AWS::ApiGateway::Method'))
      for (const m of JSON.stringify(r.Properties.Integration?.Uri ?? '').matchAll(/\$\{(?:Deployments\.Outputs\.)?(\w+LiveAlias)\}/g))
        called.add(calledFunction({ Ref: m[1] })!);
    // Every function something calls (the OpenAPI document's too), through its alias.
    expect(called.size).toBeGreaterThan(70);
    for (const [, c] of ofType('AWS::Lambda::EventInvokeConfig')) expect(c.Properties.Qualifier).toBe('live');
    // Secrets Manager calls the alias its permission names (the function's own ARN, it may not).
    for (const [id, r] of ofType('AWS::SecretsManager::RotationSchedule'))
      expect(r.Properties.RotationLambdaARN, id).toEqual(deployed.SecretsRotationPermission.Properties.FunctionName);
  });

  it('protects the tables, the keys, the secrets, the log groups and the backup vault from replacement or deletion, and deploys as DEPLOY_ROLE_ARN', () => {
    const { Statement } = JSON.parse(readFileSync(join(packagedDir, 'stack-policy.json'), 'utf8'));
    const state = JSON.parse(readFileSync(join(packagedDir, 'serverless-state.json'), 'utf8'));
    expect(state.service.provider.stackPolicy).toEqual(Statement);
    expect(Statement[0]).toEqual({ Effect: 'Allow', Principal: '*', Action: 'Update:*', Resource: '*' });
    expect(Statement[1]).toMatchObject({ Effect: 'Deny', Principal: '*', Action: ['Update:Replace', 'Update:Delete'] });
    const { Type } = { Type: (id: string) => template.Resources[id].Type };
    const kept = Object.keys(template.Resources).filter(
      (id) =>
        /^AWS::(DynamoDB::Table|KMS::Key|SecretsManager::Secret|Logs::LogGroup|Backup::BackupVault)$/.test(Type(id)) ||
        (Type(id) === 'AWS::S3::Bucket' && /Audit/.test(id)), // the audit store, when there is one
    );
    expect(kept.length).toBeGreaterThanOrEqual(5 + 3 + 5 + 2 + 1);
    expect(Statement[1].Resource).toEqual(kept.sort().map((id) => `LogicalResourceId/${id}`));
    expect(state.service.provider.iam.deploymentRole).toBe(DEPLOYER);
  });

  it('keeps every stack within 400 resources, the versions, aliases, deployment groups and permissions in a stack of their own', () => {
    const counts = {
      Service: Object.keys(template.Resources).length,
      ...Object.fromEntries(STACKS.map((s: { name: string }) => [s.name, Object.keys(nested[s.name].Resources).length])),
    };
    console.log(`CloudFormation resources a stack: ${JSON.stringify(counts)}`);
    for (const [stack, count] of Object.entries(counts)) expect(count, stack).toBeLessThanOrEqual(400);
    expect(Object.values(nested.Deployments.Resources).map((r) => r.Type)).not.toContain('AWS::Lambda::Function');
    for (const t of Object.values(nested)) {
      expect(Object.keys(t.Parameters ?? {}).length).toBeLessThanOrEqual(200); // CloudFormation's limits
      expect(Object.keys((t as any).Outputs ?? {}).length).toBeLessThanOrEqual(200);
    }
  });
});
