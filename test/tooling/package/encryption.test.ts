import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a serverless plugin, in CommonJS without types
import { encrypt } from '../../../infra/serverless/encryption.cjs';
import { BACKSTOP_MS, byJson, COPY_VAULT, loadPackaged, ofType, type Resource, STAGE, STAGE_KEY, template } from './packaged';

// The stage's key, its policy, the logs and the backups.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('keys, logs and backups', () => {
  const ENCRYPTED: Record<string, string[]> = {
    'AWS::DynamoDB::Table': ['SSESpecification', 'KMSMasterKeyId'],
    'AWS::SQS::Queue': ['KmsMasterKeyId'],
    'AWS::SecretsManager::Secret': ['KmsKeyId'],
    'AWS::SNS::Topic': ['KmsMasterKeyId'],
    'AWS::Events::EventBus': ['KmsKeyIdentifier'],
    'AWS::Events::Archive': ['KmsKeyIdentifier'],
    'AWS::Logs::LogGroup': ['KmsKeyId'],
    'AWS::Backup::BackupVault': ['EncryptionKeyArn'],
  };
  const keyOf = (r: Resource, path: string[]) => path.reduce((v, p) => v?.[p], r.Properties);

  const KEY_OF: Record<string, string> = { 'AWS::Logs::LogGroup': 'LogsKey', 'AWS::Backup::BackupVault': 'BackupKey' };

  it("encrypts every table, queue, secret, topic, bus and archive with the stage's data key, the log groups and the backup vault with keys of their own, rotated yearly and kept with the data", () => {
    const key = template.Resources.StageKey;
    expect(key).toMatchObject({ Type: 'AWS::KMS::Key', DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(key.Properties).toMatchObject({ EnableKeyRotation: true, RotationPeriodInDays: 365 });
    expect(template.Resources.StageKeyAlias.Properties).toEqual({ AliasName: `alias/payment-service-${STAGE}`, TargetKeyId: { Ref: 'StageKey' } });
    const counts: Record<string, number> = {};
    for (const [type, path] of Object.entries(ENCRYPTED))
      for (const [id, r] of ofType(type)) {
        expect(keyOf(r, path), id).toEqual(KEY_OF[type] ? { 'Fn::GetAtt': [KEY_OF[type], 'Arn'] } : STAGE_KEY);
        counts[type] = (counts[type] ?? 0) + 1;
      }
    expect(counts).toEqual({
      'AWS::DynamoDB::Table': 5,
      'AWS::SQS::Queue': 8,
      'AWS::SecretsManager::Secret': 5,
      'AWS::SNS::Topic': 1,
      'AWS::Events::EventBus': 1,
      'AWS::Events::Archive': 1,
      'AWS::Logs::LogGroup': 3,
      'AWS::Backup::BackupVault': 1,
    });
    for (const [id, table] of ofType('AWS::DynamoDB::Table')) expect(table.Properties.SSESpecification, id).toMatchObject({ SSEEnabled: true, SSEType: 'KMS' });
  });

  // Who may administer and use each key: separated-duties.test.ts.

  it('uses the key KMS_KEY_ARN names for the data instead of making one', () => {
    const own = 'arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555';
    const resources = structuredClone(template.Resources);
    delete resources.StageKey;
    delete resources.StageKeyAlias;
    const logs = { 'Fn::GetAtt': ['LogsKey', 'Arn'] };
    const backups = { 'Fn::GetAtt': ['BackupKey', 'Arn'] };
    encrypt(resources, { data: own, logs, backups });
    for (const [type, path] of Object.entries(ENCRYPTED))
      for (const [id, r] of Object.entries(resources).filter(([, r]) => r.Type === type))
        expect(keyOf(r, path), id).toEqual(type === 'AWS::Logs::LogGroup' ? logs : type === 'AWS::Backup::BackupVault' ? backups : own);
  });

  it('keeps the logs LOG_RETENTION_DAYS and past the stack, every function in one log group', () => {
    const groups = Object.fromEntries(ofType('AWS::Logs::LogGroup'));
    expect(Object.keys(groups).sort()).toEqual(['ApiAccessLogs', 'FunctionLogs', 'WafLogs']);
    for (const [id, group] of Object.entries(groups)) {
      expect([group.DeletionPolicy, group.UpdateReplacePolicy], id).toEqual(['Retain', 'Retain']);
      expect(Number(group.Properties.RetentionInDays), id).toBe(731);
      // CloudFormation's, or (WAF's, whose name WAF fixes the start of) with the stack's id: a later stack makes new ones beside the kept.
      if (id === 'WafLogs') expect(JSON.stringify(group.Properties.LogGroupName), id).toContain('AWS::StackId');
      else expect(group.Properties.LogGroupName, id).toBeUndefined();
    }
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.LoggingConfig, id).toEqual({ LogGroup: { Ref: 'FunctionLogs' } });
      expect(fn.DependsOn ?? [], id).toEqual([]);
    }
  });

  it('backs up every table daily, keeps each backup 35 days in a vault of its own, and copies it to BACKUP_COPY_VAULT_ARN', () => {
    const plan = template.Resources.BackupPlan.Properties.BackupPlan;
    expect(plan.BackupPlanRule).toEqual([
      expect.objectContaining({
        TargetBackupVault: { Ref: 'BackupVault' },
        ScheduleExpression: 'cron(0 3 * * ? *)',
        Lifecycle: { DeleteAfterDays: 35 },
        CopyActions: [{ DestinationBackupVaultArn: COPY_VAULT, Lifecycle: { DeleteAfterDays: 35 } }],
      }),
    ]);
    const selection = template.Resources.BackupSelection.Properties;
    expect(selection.BackupPlanId).toEqual({ Ref: 'BackupPlan' });
    expect(selection.BackupSelection.Resources.sort(byJson)).toEqual(
      ofType('AWS::DynamoDB::Table')
        .map(([id]) => ({ 'Fn::GetAtt': [id, 'Arn'] }))
        .sort(byJson),
    );
    expect(selection.BackupSelection.IamRoleArn).toEqual({ 'Fn::GetAtt': ['BackupRole', 'Arn'] });
    expect(template.Resources.BackupRole.Properties.Path).toBe(`/payment-service/${STAGE}/`);
    expect(template.Resources.BackupVault).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  // ApiGatewayAccount was retained but its role deleted: removing the stack broke API Gateway's
  // logging for the whole account.
  it("keeps API Gateway's account role with the account setting that names it", () => {
    for (const id of ['ApiGatewayAccount', 'ApiGatewayAccountRole'])
      expect([template.Resources[id].DeletionPolicy, template.Resources[id].UpdateReplacePolicy], id).toEqual(['Retain', 'Retain']);
  });
});
