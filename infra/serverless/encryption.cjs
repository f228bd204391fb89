'use strict';

const { setting, roleArnList } = require('./settings.cjs');
const { roleArn, stageNames } = require('./function-roles.cjs');

// Three customer managed keys for the stage, each rotated every year and kept past the stack, as
// the data it encrypts is: StageKey (or KMS_KEY_ARN, a key of your own in the stack's region) for
// the data (every table, and so its streams; secret, queue, topic, bus and event archive), LogsKey
// for the log groups, BackupKey for the backup vault (with AWS Backup's advanced DynamoDB backups,
// docs/deploy.md, a recovery point is encrypted with the vault's key, not the table's: it survives
// the data key's loss). Each resource of those types is given its key here, so that one added later is too.
//
// Each policy separates who administers a key from who uses it:
// - KEY_ADMIN_ROLE_ARN administers (policy, rotation, aliases, disabling, deletion) and never
//   encrypts or decrypts; DEPLOY_ROLE_ARN (CloudFormation's service role) keeps the key's
//   configuration as the template says (no disabling, no deletion). Both are named by a condition on
//   the account's principal, not as principals: a role deleted by mistake is made again under its
//   name and has its access back, so the key never becomes unmanageable (what KMS's lockout check
//   guards), while no other principal of the account (an IAM administrator included) may manage it.
//   Without them (the local stage), the account's IAM policies administer it, as KMS's default policy does;
// - the service's function roles use the data key, each named by its ARN, and nothing else;
// - through DynamoDB, SQS, Secrets Manager and AWS Backup only: the deploy role (CloudFormation
//   makes the tables and secrets as it), AWS Backup's role, and the break-glass roles
//   (BREAK_GLASS_ROLE_ARNS: an operator reading a secret or the data);
// - AWS services, each with a source condition: EventBridge for this stack's bus, its rules and its
//   archive, CloudWatch for this account's alarms (publishing to the encrypted alarm topic),
//   CloudWatch Logs for this stack's log groups.
const KEYS = {
  data: 'StageKey',
  logs: 'LogsKey',
  backups: 'BackupKey',
};
const KEYED = {
  'AWS::DynamoDB::Table': ['data', (p, key) => (p.SSESpecification = { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: key })],
  'AWS::SQS::Queue': [
    'data',
    (p, key) => {
      delete p.SqsManagedSseEnabled;
      p.KmsMasterKeyId = key;
    },
  ],
  'AWS::SecretsManager::Secret': ['data', (p, key) => (p.KmsKeyId = key)],
  'AWS::SNS::Topic': ['data', (p, key) => (p.KmsMasterKeyId = key)],
  'AWS::Events::EventBus': ['data', (p, key) => (p.KmsKeyIdentifier = key)],
  'AWS::Events::Archive': ['data', (p, key) => (p.KmsKeyIdentifier = key)],
  'AWS::Logs::LogGroup': ['logs', (p, key) => (p.KmsKeyId = key)],
  'AWS::Backup::BackupVault': ['backups', (p, key) => (p.EncryptionKeyArn = key)],
};
const USE = ['kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:DescribeKey'];
// What CloudFormation does to a key and its alias as the template says.
const CONFIGURE = [
  'kms:DescribeKey',
  'kms:GetKeyPolicy',
  'kms:PutKeyPolicy',
  'kms:GetKeyRotationStatus',
  'kms:EnableKeyRotation',
  'kms:ListResourceTags',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:UpdateKeyDescription',
  'kms:CreateAlias',
  'kms:UpdateAlias',
  'kms:DeleteAlias',
];
const ADMINISTER = [
  ...CONFIGURE,
  'kms:DisableKeyRotation',
  'kms:RotateKeyOnDemand',
  'kms:ListKeyRotations',
  'kms:EnableKey',
  'kms:DisableKey',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
  'kms:ListGrants',
  'kms:RevokeGrant',
];
const sub = (text) => ({ 'Fn::Sub': text });
const account = sub(`\${AWS::AccountId}`);
const ROOT = { AWS: sub(`arn:\${AWS::Partition}:iam::\${AWS::AccountId}:root`) };

class Encryption {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { service } = serverless;
        const stage = options.stage ?? service.provider.stage;
        const resources = service.provider.compiledCloudFormationTemplate.Resources;
        const own = setting('KMS_KEY_ARN');
        const who = principals(resources, stageNames(service.service, stage));
        const keys = {};
        for (const [kind, id] of Object.entries(KEYS)) {
          if (kind === 'data' && own) keys.data = own;
          else if (Object.values(resources).some((r) => KEYED[r.Type]?.[0] === kind)) {
            addKey(resources, id, `${service.service}-${stage}${kind === 'data' ? '' : `-${kind}`}`, kind, who);
            keys[kind] = { 'Fn::GetAtt': [id, 'Arn'] };
          }
        }
        encrypt(resources, keys);
      },
    };
  }
}

// Every resource of a type that takes a key, encrypted with its kind's key of `keys` ({ data, logs, backups }).
function encrypt(resources, keys) {
  for (const r of Object.values(resources)) {
    const [kind, set] = KEYED[r.Type] ?? [];
    if (set) set(r.Properties, keys[kind]);
  }
}

// Who the key policies name: the settings' roles, the service's function roles and AWS Backup's, by ARN.
function principals(resources, names) {
  const roles = (service) =>
    Object.keys(resources)
      .filter((id) => resources[id].Type === 'AWS::IAM::Role' && resources[id].Properties.RoleName)
      .filter((id) => resources[id].Properties.AssumeRolePolicyDocument.Statement.some((s) => s.Principal?.Service === service))
      .map((id) => roleArn(names, id));
  return {
    admin: setting('KEY_ADMIN_ROLE_ARN'),
    deploy: setting('DEPLOY_ROLE_ARN'),
    breakGlass: roleArnList('BREAK_GLASS_ROLE_ARNS'),
    functions: roles('lambda.amazonaws.com'),
    backup: roles('backup.amazonaws.com'),
    // By name (a reference would be a cycle: the bus names the key).
    buses: Object.values(resources)
      .filter((r) => r.Type === 'AWS::Events::EventBus')
      .map((r) => r.Properties.Name),
  };
}

// The account's principal, narrowed to `arns` (none: as IAM allows).
const onlyRoles = (arns) => (arns.length ? { ArnEquals: { 'aws:PrincipalArn': arns } } : {});

function addKey(resources, id, alias, kind, who) {
  const via = (services) => services.map((s) => sub(`${s}.\${AWS::Region}.\${AWS::URLSuffix}`));
  const statements = [
    {
      Sid: 'KeyAdministratorsManageItOnly',
      Effect: 'Allow',
      Principal: ROOT,
      Action: ADMINISTER,
      Resource: '*',
      Condition: onlyRoles([who.admin].filter(Boolean)),
    },
  ];
  if (who.deploy)
    statements.push({
      Sid: 'DeploysKeepItsConfiguration',
      Effect: 'Allow',
      Principal: ROOT,
      Action: CONFIGURE,
      Resource: '*',
      Condition: onlyRoles([who.deploy]),
    });
  if (kind === 'data') {
    const throughServices = [who.deploy, ...who.backup, ...who.breakGlass].filter(Boolean);
    statements.push(
      {
        Sid: 'ThroughTheStacksServicesOnly',
        Effect: 'Allow',
        Principal: ROOT,
        Action: [...USE, 'kms:CreateGrant'],
        Resource: '*',
        Condition: {
          StringEquals: { 'kms:CallerAccount': account, 'kms:ViaService': via(['dynamodb', 'sqs', 'secretsmanager', 'backup']) },
          ...(who.deploy && onlyRoles(throughServices)),
        },
      },
      {
        Sid: 'TheServicesFunctionRoles',
        Effect: 'Allow',
        Principal: { AWS: '*' },
        Action: USE,
        Resource: '*',
        Condition: { StringEquals: { 'kms:CallerAccount': account }, ...onlyRoles(who.functions) },
      },
      {
        Sid: 'EventBridgeForTheStacksBusRulesAndArchive',
        Effect: 'Allow',
        Principal: { Service: 'events.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey', 'kms:ReEncrypt*'],
        Resource: '*',
        Condition: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: {
            'aws:SourceArn': [...who.buses.flatMap((bus) => [`event-bus/${bus}`, `rule/${bus}/*`]), 'archive/*'].map((r) =>
              sub(`arn:\${AWS::Partition}:events:\${AWS::Region}:\${AWS::AccountId}:${r}`),
            ),
          },
        },
      },
      {
        Sid: 'EventBridgeDescribesItInThisAccount',
        Effect: 'Allow',
        Principal: { Service: 'events.amazonaws.com' },
        Action: 'kms:DescribeKey',
        Resource: '*',
        Condition: { StringEquals: { 'aws:SourceAccount': account } },
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
    );
  }
  if (kind === 'logs')
    statements.push({
      Sid: 'CloudWatchLogsForTheStacksLogGroups',
      Effect: 'Allow',
      Principal: { Service: sub(`logs.\${AWS::Region}.\${AWS::URLSuffix}`) },
      Action: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
      Resource: '*',
      Condition: {
        // CloudFormation names a log group `<stack>-<logical id>-<suffix>`; WAF's must begin aws-waf-logs-.
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': [`\${AWS::StackName}-*`, 'aws-waf-logs-*'].map((g) =>
            sub(`arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:${g}`),
          ),
        },
      },
    });
  if (kind === 'backups') {
    // AWS Backup's role, through AWS Backup only (it copies, restores and expires recovery points).
    const users = [...who.backup, ...who.breakGlass];
    statements.push({
      Sid: 'AwsBackupsRoleThroughAwsBackupOnly',
      Effect: 'Allow',
      Principal: ROOT,
      Action: [...USE, 'kms:CreateGrant'],
      Resource: '*',
      Condition: { StringEquals: { 'kms:CallerAccount': account, 'kms:ViaService': via(['backup']) }, ...onlyRoles(users) },
    });
  }
  for (const s of statements) if (s.Condition && !Object.keys(s.Condition).length) delete s.Condition;
  resources[id] = {
    Type: 'AWS::KMS::Key',
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: {
      Description: `${alias}: ${{ data: 'its tables, secrets, queues, topic and bus', logs: 'its log groups', backups: 'its backup vault' }[kind]}`,
      EnableKeyRotation: true,
      RotationPeriodInDays: 365,
      PendingWindowInDays: 30,
      KeyPolicy: { Version: '2012-10-17', Statement: statements },
    },
  };
  resources[`${id}Alias`] = { Type: 'AWS::KMS::Alias', Properties: { AliasName: `alias/${alias}`, TargetKeyId: { Ref: id } } };
}

module.exports = Encryption;
module.exports.encrypt = encrypt;
