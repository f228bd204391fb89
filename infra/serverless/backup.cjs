'use strict';

const { setting } = require('./settings.cjs');
const { rolePath, serviceRole } = require('./function-roles.cjs');

// Backups beyond point-in-time recovery's 35 days of restore points (BACKUPS_ENABLED): an AWS Backup
// plan that backs up every table of the template daily, keeps each backup 35 days in a vault of the
// stack's (encrypted with the stage's key, retained with the tables), and, with
// BACKUP_COPY_VAULT_ARN, copies each to that vault in another region, kept as long.
const DAYS = 35;

class Backup {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        if (setting('BACKUPS_ENABLED') !== 'true') return;
        const { service } = serverless;
        const stage = options.stage ?? service.provider.stage;
        addBackups(service.provider.compiledCloudFormationTemplate.Resources, `${service.service}-${stage}`, rolePath(service.service, stage));
      },
    };
  }
}

function addBackups(resources, name, path) {
  const tables = Object.keys(resources).filter((id) => resources[id].Type === 'AWS::DynamoDB::Table');
  const copyTo = setting('BACKUP_COPY_VAULT_ARN');
  // A vault name is the account's and region's: this stack's carries its own id, so that a stack
  // deployed after one was removed (its vault is retained, with its backups) makes a new one.
  const stackId = { 'Fn::Select': [0, { 'Fn::Split': ['-', { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] }] }] };
  resources.BackupVault = {
    Type: 'AWS::Backup::BackupVault',
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: { BackupVaultName: { 'Fn::Join': ['-', [name, stackId]] } },
  };
  resources.BackupRole = serviceRole('backup.amazonaws.com', path, [
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
