'use strict';

const { setting } = require('./settings.cjs');
const { serviceRole, stageNames } = require('./function-roles.cjs');

// Backups beyond point-in-time recovery's 35 days of restore points (BACKUPS_ENABLED): an AWS Backup
// plan that backs up every table of the template daily, keeps each backup 35 days in a vault of the
// stack's (encrypted with the stage's backup key, encryption.cjs; retained with the tables), and,
// with BACKUP_COPY_VAULT_ARN, copies each to that vault in another region, kept as long (whenever
// it is set: the production profile asks for it). The vault is locked (AWS Backup Vault Lock, in
// compliance mode once LOCK_GRACE_DAYS have passed: from then on nobody, AWS included, can shorten a
// recovery point's retention below 35 days, delete one early, or lift the lock), and its access
// policy denies deleting a recovery point or changing its lifecycle to every principal, and
// changing the policy or the lock to all but the deploy role (DEPLOY_ROLE_ARN).
const DAYS = 35;
const MAX_DAYS = 366; // the longest a lifecycle may keep a recovery point in the vault (the lock's bound)
const LOCK_GRACE_DAYS = 3; // AWS Backup's least: the lock can be removed within it

class Backup {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        if (setting('BACKUPS_ENABLED') !== 'true') return;
        const { service } = serverless;
        const stage = options.stage ?? service.provider.stage;
        addBackups(service.provider.compiledCloudFormationTemplate.Resources, `${service.service}-${stage}`, stageNames(service.service, stage));
      },
    };
  }
}

function addBackups(resources, name, names) {
  const tables = Object.keys(resources).filter((id) => resources[id].Type === 'AWS::DynamoDB::Table');
  const copyTo = setting('BACKUP_COPY_VAULT_ARN');
  // A vault name is the account's and region's: this stack's carries its own id, so that a stack
  // deployed after one was removed (its vault is retained, with its backups) makes a new one.
  const stackId = { 'Fn::Select': [0, { 'Fn::Split': ['-', { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] }] }] };
  // (A vault's key cannot change: a stack deployed when the vault was on the data key makes this
  // one beside it, named anew; the old one keeps its recovery points until they expire.)
  const deploy = setting('DEPLOY_ROLE_ARN');
  resources.BackupVault = {
    Type: 'AWS::Backup::BackupVault',
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: {
      BackupVaultName: { 'Fn::Join': ['-', [name, 'backups', stackId]] },
      LockConfiguration: { MinRetentionDays: DAYS, MaxRetentionDays: MAX_DAYS, ChangeableForDays: LOCK_GRACE_DAYS },
      AccessPolicy: {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'NobodyDeletesARecoveryPoint',
            Effect: 'Deny',
            Principal: '*',
            Action: ['backup:DeleteRecoveryPoint', 'backup:UpdateRecoveryPointLifecycle', 'backup:DisassociateRecoveryPoint'],
            Resource: '*',
          },
          // (Without a deploy role, the local stage: whoever deploys may.)
          ...(deploy
            ? [
                {
                  Sid: 'OnlyTheDeployRoleChangesThePolicyOrTheLock',
                  Effect: 'Deny',
                  Principal: '*',
                  Action: [
                    'backup:PutBackupVaultAccessPolicy',
                    'backup:DeleteBackupVaultAccessPolicy',
                    'backup:PutBackupVaultLockConfiguration',
                    'backup:DeleteBackupVaultLockConfiguration',
                    'backup:DeleteBackupVault',
                  ],
                  Resource: '*',
                  Condition: { ArnNotEquals: { 'aws:PrincipalArn': deploy } },
                },
              ]
            : []),
        ],
      },
    },
  };
  resources.BackupRole = serviceRole('backup.amazonaws.com', names, 'BackupRole', [
    'service-role/AWSBackupServiceRolePolicyForBackup',
    'service-role/AWSBackupServiceRolePolicyForRestores',
  ]);
  const lifecycle = { DeleteAfterDays: DAYS };
  resources.BackupPlan = {
    Type: 'AWS::Backup::BackupPlan',
    Properties: {
      BackupPlan: {
        BackupPlanName: `${name}-tables`,
        BackupPlanRule: [
          {
            RuleName: `daily-${DAYS}-days`,
            TargetBackupVault: { Ref: 'BackupVault' },
            ScheduleExpression: 'cron(0 3 * * ? *)', // 03:00 UTC
            StartWindowMinutes: 60,
            CompletionWindowMinutes: 480,
            Lifecycle: lifecycle,
            ...(copyTo && { CopyActions: [{ DestinationBackupVaultArn: copyTo, Lifecycle: lifecycle }] }),
          },
        ],
      },
    },
  };
  resources.BackupSelection = {
    Type: 'AWS::Backup::BackupSelection',
    Properties: {
      BackupPlanId: { Ref: 'BackupPlan' },
      BackupSelection: {
        SelectionName: 'tables',
        IamRoleArn: { 'Fn::GetAtt': ['BackupRole', 'Arn'] },
        Resources: tables.map((t) => ({ 'Fn::GetAtt': [t, 'Arn'] })),
      },
    },
  };
}

module.exports = Backup;
