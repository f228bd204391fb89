'use strict';

const { setting, roleArnList } = require('./settings.cjs');
const { roleArn, stageNames } = require('./function-roles.cjs');

// Tables (and their streams) readable and writable only by the service: a resource policy on each
// denies every item and stream call, and point-in-time exports and restores, to any principal but
// the service's function roles, AWS Backup's role (it backs up and restores), the break-glass roles
// (BREAK_GLASS_ROLE_ARNS) and, for the policy itself, the deploy role (DEPLOY_ROLE_ARN), so that a
// principal of the account with DynamoDB read (say ReadOnlyAccess) reads nothing, and nobody else
// can lift the policy. The data key's policy (encryption.cjs) names the same roles. The roles are
// named by ARN without a reference to them (function-roles.cjs: they name the tables).
const DATA = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:PartiQLSelect',
  'dynamodb:PartiQLInsert',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PartiQLDelete',
  'dynamodb:ExportTableToPointInTime',
  'dynamodb:RestoreTableToPointInTime',
];
const STREAM = ['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream'];
const POLICY = ['dynamodb:PutResourcePolicy', 'dynamodb:DeleteResourcePolicy'];

class DataAccess {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { service } = serverless;
        const resources = service.provider.compiledCloudFormationTemplate.Resources;
        restrict(resources, stageNames(service.service, options.stage ?? service.provider.stage));
      },
    };
  }
}

function restrict(resources, names) {
  const stageRoles = Object.keys(resources)
    .filter((id) => resources[id].Type === 'AWS::IAM::Role' && resources[id].Properties.RoleName)
    .filter((id) => resources[id].Properties.AssumeRolePolicyDocument.Statement.some((s) => /^(lambda|backup)\./.test(s.Principal?.Service)))
    .map((id) => roleArn(names, id));
  const readers = [...stageRoles, ...roleArnList('BREAK_GLASS_ROLE_ARNS')];
  const deploy = setting('DEPLOY_ROLE_ARN');
  const deny = (sid, actions, except) => ({
    Sid: sid,
    Effect: 'Deny',
    Principal: '*',
    Action: actions,
    Resource: '*',
    Condition: { ArnNotEquals: { 'aws:PrincipalArn': except } },
  });
  const policy = (actions) => ({
    PolicyDocument: {
      Version: '2012-10-17',
      Statement: [
        deny('OnlyTheServiceAndBreakGlassRoles', actions, readers),
        ...(deploy ? [deny('OnlyTheDeployRoleChangesThisPolicy', POLICY, [deploy])] : []),
      ],
    },
  });
  for (const table of Object.values(resources).filter((r) => r.Type === 'AWS::DynamoDB::Table')) {
    table.Properties.ResourcePolicy = policy(DATA);
    if (table.Properties.StreamSpecification) table.Properties.StreamSpecification.ResourcePolicy = policy(STREAM);
  }
}

module.exports = DataAccess;
