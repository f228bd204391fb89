'use strict';

const { setting } = require('./settings.cjs');
const { rolePath } = require('./function-roles.cjs');

// One customer managed KMS key for the stage (StageKey, rotated every year; or KMS_KEY_ARN, a key of
// your own in the stack's region) encrypts every table (and so its stream and backups), secret,
// queue, topic, bus, event archive, log group and backup vault of the template: each resource of
// those types is given it here, so that one added later is too. The key outlives the stack, as
// the data it encrypts does (tables, secrets, logs and backups are retained).
//
// Its policy names who may use it, and how:
// - the account's administrators (IAM) manage it, but cannot encrypt or decrypt with it;
// - principals of the account that IAM allows, only through DynamoDB, SQS, Secrets Manager and AWS
//   Backup in this region: whoever deploys the stack (CloudFormation creates the tables and
//   secrets as them), an operator reading a secret (docs/deploy.md), AWS Backup's role;
// - the stage's function roles (by their IAM path, which only this stack's roles have; named by
//   path, not ARN, as the roles name the tables that use the key), without an IAM policy of theirs;
// - CloudWatch Logs for the account's log groups, EventBridge (the bus, its archive, its rule's
//   queues: it sends no source condition for those), CloudWatch for the alarms of this account and
//   region (publishing to the encrypted alarm topic).
const KEY = 'StageKey';
const KEYED = {
  'AWS::DynamoDB::Table': (p, key) => (p.SSESpecification = { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: key }),
  'AWS::SQS::Queue': (p, key) => {
    delete p.SqsManagedSseEnabled;
    p.KmsMasterKeyId = key;
  },
  'AWS::SecretsManager::Secret': (p, key) => (p.KmsKeyId = key),
  'AWS::SNS::Topic': (p, key) => (p.KmsMasterKeyId = key),
  'AWS::Events::EventBus': (p, key) => (p.KmsKeyIdentifier = key),
  'AWS::Events::Archive': (p, key) => (p.KmsKeyIdentifier = key),
  'AWS::Logs::LogGroup': (p, key) => (p.KmsKeyId = key),
  'AWS::Backup::BackupVault': (p, key) => (p.EncryptionKeyArn = key),
};
const USE = ['kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:DescribeKey'];
const ADMINISTER = [
  'kms:DescribeKey',
  'kms:GetKeyPolicy',
  'kms:PutKeyPolicy',
  'kms:GetKeyRotationStatus',
  'kms:EnableKeyRotation',
  'kms:DisableKeyRotation',
  'kms:RotateKeyOnDemand',
  'kms:ListKeyRotations',
  'kms:ListResourceTags',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:UpdateKeyDescription',
  'kms:CreateAlias',
  'kms:UpdateAlias',
  'kms:DeleteAlias',
  'kms:EnableKey',
  'kms:DisableKey',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
  'kms:ListGrants',
  'kms:RevokeGrant',
];
const sub = (text) => ({ 'Fn::Sub': text });
const account = sub(`\${AWS::AccountId}`);

class Encryption {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { service } = serverless;
        const stage = options.stage ?? service.provider.stage;
        const resources = service.provider.compiledCloudFormationTemplate.Resources;
        const own = setting('KMS_KEY_ARN');
        if (!own) addKey(resources, service.service, stage);
        encrypt(resources, own ?? { 'Fn::GetAtt': [KEY, 'Arn'] });
      },
    };
  }
}

// Every resource of a type that takes a key, encrypted with `key`.
function encrypt(resources, key) {
  for (const r of Object.values(resources)) if (KEYED[r.Type]) KEYED[r.Type](r.Properties, key);
}

function addKey(resources, serviceName, stage) {
  const via = (services) => services.map((s) => sub(`${s}.\${AWS::Region}.\${AWS::URLSuffix}`));
  const root = { AWS: sub(`arn:\${AWS::Partition}:iam::\${AWS::AccountId}:root`) };
  resources[KEY] = {
    Type: 'AWS::KMS::Key',
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: {
      Description: `${serviceName} ${stage}: its tables, secrets, queues, topic, bus, logs and backups`,
      EnableKeyRotation: true,
      RotationPeriodInDays: 365,
      PendingWindowInDays: 30,
      KeyPolicy: {
        Version: '2012-10-17',
        Statement: [
          { Sid: 'AdministratorsManageItOnly', Effect: 'Allow', Principal: root, Action: ADMINISTER, Resource: '*' },
          {
            Sid: 'AccountPrincipalsThroughTheStacksServices',
            Effect: 'Allow',
            Principal: root,
            Action: [...USE, 'kms:CreateGrant'],
            Resource: '*',
            Condition: {
              StringEquals: { 'kms:CallerAccount': account, 'kms:ViaService': via(['dynamodb', 'sqs', 'secretsmanager', 'backup']) },
            },
          },
          {
            Sid: 'TheStagesFunctionRoles',
            Effect: 'Allow',
            Principal: { AWS: '*' },
            Action: USE,
            Resource: '*',
            Condition: {
              StringEquals: { 'kms:CallerAccount': account },
              ArnLike: { 'aws:PrincipalArn': sub(`arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role${rolePath(serviceName, stage)}*`) },
            },
          },
          {
            Sid: 'CloudWatchLogsForTheAccountsLogGroups',
            Effect: 'Allow',
            Principal: { Service: sub(`logs.\${AWS::Region}.\${AWS::URLSuffix}`) },
            Action: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
            Resource: '*',
            Condition: { ArnLike: { 'kms:EncryptionContext:aws:logs:arn': sub(`arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:*`) } },
          },
          {
            Sid: 'EventBridgeForTheBusAndItsQueues',
            Effect: 'Allow',
            Principal: { Service: 'events.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey', 'kms:DescribeKey'],
            Resource: '*',
          },
          {
            Sid: 'CloudWatchAlarmsToTheAlarmTopic',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Resource: '*',
            Condition: {
              StringEquals: { 'aws:SourceAccount': account },
              ArnLike: { 'aws:SourceArn': sub(`arn:\${AWS::Partition}:cloudwatch:\${AWS::Region}:\${AWS::AccountId}:alarm:*`) },
            },
          },
        ],
      },
    },
  };
  resources[`${KEY}Alias`] = { Type: 'AWS::KMS::Alias', Properties: { AliasName: `alias/${serviceName}-${stage}`, TargetKeyId: { Ref: KEY } } };
}

module.exports = Encryption;
module.exports.encrypt = encrypt;
