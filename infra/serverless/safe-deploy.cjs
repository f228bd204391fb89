'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { setting } = require('./settings.cjs');
const { serviceRole, stageNames } = require('./function-roles.cjs');

// A deploy that can be stopped and undone, by what it deploys to and by who deploys:
// - every function is published as a version at each change (serverless's versionFunctions), and
//   is called only through its alias `live` (API routes, schedules, queues, the stream, Secrets
//   Manager's rotation schedules, and their permissions; the roles that invoke a function, on its
//   alias's ARN, `<function ARN>:live`, which the console and the tenants' functions call);
//   CodeDeploy moves the alias to the new version by TRAFFIC_SHIFT (10% for 5 minutes by default,
//   then all) and moves it back, failing the deploy, which CloudFormation then rolls back, if the
//   new version's errors alarm goes off meanwhile: one application, one deployment group a function
//   (CodeDeploy runs one deployment a group at a time, and CloudFormation updates the aliases at
//   once). That alarm counts the errors of the calls through the alias that the new version ran
//   (Lambda's FunctionName, Resource `<name>:live` and ExecutedVersion dimensions), so that neither
//   the old version's errors roll back a good deploy nor the new one's hide among them; the
//   function's own errors alarm (alarms.cjs, every version) tells the operators. TRAFFIC_SHIFT=none: no versions, no aliases, no CodeDeploy (LocalStack's free image
//   has none);
// - a stack policy (serverless sets it after each deploy) denies replacing or deleting the tables,
//   the keys, the secrets, the log groups, the backup vault and any S3 bucket whose logical id holds
//   "Audit" (the write-once audit store): such a change fails instead of losing data (docs/deploy.md
//   says how to make one on purpose). It is written beside the template as stack-policy.json;
// - CloudFormation deploys as DEPLOY_ROLE_ARN (its service role), not as whoever runs the deploy.
// The versions, aliases, deployment groups and the permissions go to a stack of their own
// (nested-stacks.cjs), so that the service's stays under its resource budget.
const ALIAS = 'live';
const PROTECTED = /^AWS::(DynamoDB::Table|KMS::Key|SecretsManager::Secret|Logs::LogGroup|Backup::BackupVault)$/;
const AUDIT_STORE = (id, r) => r.Type === 'AWS::S3::Bucket' && /Audit/.test(id);
const CALLERS = /^AWS::(ApiGateway::Method|Lambda::Permission|Lambda::EventSourceMapping|Events::Rule|SecretsManager::RotationSchedule)$/;
// The new version's errors alarm: a minute's errors, none being no failure (a canary may see no
// call), summed over up to ten functions (CloudWatch's most in a metric math alarm).
const PERIOD = 60;
const MAX_ALARM_METRICS = 10;

class SafeDeploy {
  constructor(serverless, options) {
    const deployRole = setting('DEPLOY_ROLE_ARN');
    if (deployRole) serverless.service.provider.iam = { ...serverless.service.provider.iam, deploymentRole: deployRole };
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { service } = serverless;
        const stage = options.stage ?? service.provider.stage;
        const template = service.provider.compiledCloudFormationTemplate;
        const shift = setting('TRAFFIC_SHIFT');
        if (shift === 'none') withoutVersions(template);
        else shiftTraffic(template, shift, stageNames(service.service, stage));
      },
      // Once ./nested-stacks.cjs has moved what goes to the nested stacks: the policy names what the
      // service's own stack holds.
      'before:aws:package:finalize:saveServiceState': () => {
        const { service } = serverless;
        service.provider.stackPolicy = stackPolicy(service.provider.compiledCloudFormationTemplate.Resources);
        const dir = path.join(serverless.serviceDir, '.serverless');
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, 'stack-policy.json'), `${JSON.stringify({ Statement: service.provider.stackPolicy }, null, 2)}\n`);
      },
    };
  }
}

// The alarm of the `i`th function's new version (its `version`): its errors in the calls through
// the alias that the new version ran, summed with up to nine other functions' (one metric math
// alarm: CloudWatch takes ten metrics in one), as the Deployments stack has no room for an alarm a
// function. One function's new version failing stops the others' deployments too, which
// CloudFormation rolls back anyway: one failed deployment fails the update. Answers its id.
function newVersionErrors(resources, versionId, functionName, i) {
  const id = `NewVersionErrors${Math.floor(i / MAX_ALARM_METRICS) + 1}Alarm`;
  resources[id] ??= {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmDescription: "A function's new version failed (an error or a timeout) during its deploy: CodeDeploy rolls the deploy back",
      Metrics: [],
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    },
  };
  const metrics = resources[id].Properties.Metrics.filter((m) => m.MetricStat);
  metrics.push({
    Id: `m${metrics.length}`,
    MetricStat: {
      Metric: {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [
          { Name: 'FunctionName', Value: functionName },
          { Name: 'Resource', Value: `${functionName}:${ALIAS}` },
          { Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } },
        ],
      },
      Period: PERIOD,
      Stat: 'Sum',
    },
    ReturnData: false,
  });
  const sum = { Id: 'errors', Expression: `SUM([${metrics.map((m) => m.Id).join(',')}])`, ReturnData: true };
  resources[id].Properties.Metrics = [...metrics, sum];
  return id;
}

// serverless's versions, and their outputs, left out.
function withoutVersions(template) {
  for (const [id, r] of Object.entries(template.Resources)) if (r.Type === 'AWS::Lambda::Version') delete template.Resources[id];
  for (const id of Object.keys(template.Outputs ?? {})) if (id.endsWith('QualifiedArn')) delete template.Outputs[id];
}

function shiftTraffic(template, shift, names) {
  const resources = template.Resources;
  const aliases = {};
  const versions = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Lambda::Version');
  // (By function: serverless makes the versions in no set order.)
  versions.sort(([, a], [, b]) => (a.Properties.FunctionName.Ref < b.Properties.FunctionName.Ref ? -1 : 1));
  for (const [i, [versionId, version]] of versions.entries()) {
    const fn = version.Properties.FunctionName.Ref;
    const base = fn.replace(/LambdaFunction$/, '');
    const functionName = resources[fn].Properties.FunctionName;
    // By name, waiting for the function, rather than by reference: this stack's parameters are few.
    version.Properties.FunctionName = functionName;
    version.DependsOn = [fn];
    // Each deploy's version replaces the last (the alias has moved when CloudFormation deletes it).
    delete version.DeletionPolicy;
    aliases[fn] = `${base}LiveAlias`;
    const alarm = newVersionErrors(resources, versionId, functionName, i);
    resources[`${base}CodeDeployGroup`] = {
      Type: 'AWS::CodeDeploy::DeploymentGroup',
      Properties: {
        ApplicationName: { Ref: 'CodeDeployApplication' },
        ServiceRoleArn: { 'Fn::GetAtt': ['CodeDeployRole', 'Arn'] },
        DeploymentConfigName: `CodeDeployDefault.Lambda${shift}`,
        DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
        AutoRollbackConfiguration: { Enabled: true, Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM'] },
        AlarmConfiguration: { Enabled: true, Alarms: [{ Name: { Ref: alarm } }] },
      },
    };
    resources[aliases[fn]] = {
      Type: 'AWS::Lambda::Alias',
      Properties: { FunctionName: functionName, FunctionVersion: { 'Fn::GetAtt': [versionId, 'Version'] }, Name: ALIAS },
      // The alarm watches the new version before any call reaches it.
      DependsOn: [alarm],
      UpdatePolicy: {
        CodeDeployLambdaAliasUpdate: { ApplicationName: { Ref: 'CodeDeployApplication' }, DeploymentGroupName: { Ref: `${base}CodeDeployGroup` } },
      },
    };
  }
  if (!Object.keys(aliases).length) return;
  resources.CodeDeployApplication = { Type: 'AWS::CodeDeploy::Application', Properties: { ComputePlatform: 'Lambda' } };
  resources.CodeDeployRole = serviceRole('codedeploy.amazonaws.com', names, 'CodeDeployRole', ['service-role/AWSCodeDeployRoleForLambda']);
  for (const id of Object.keys(template.Outputs ?? {})) if (id.endsWith('QualifiedArn')) delete template.Outputs[id];
  // Whatever calls a function calls its alias.
  for (const r of Object.values(resources).filter((r) => CALLERS.test(r.Type))) r.Properties = toAliases(r.Properties, aliases);
  // A role invokes the alias, by its ARN (a reference to the alias would be a cycle: the function
  // needs its role); Lambda's permission on the function's own ARN does not cover a qualified one.
  for (const role of Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Role'))
    for (const st of (role.Properties.Policies ?? []).flatMap((p) => p.PolicyDocument.Statement))
      if ([st.Action].flat().every((a) => a.startsWith('lambda:')))
        st.Resource = [st.Resource].flat().map((r) => {
          const [id, attribute] = r?.['Fn::GetAtt'] ?? [];
          return attribute === 'Arn' && aliases[id] ? { 'Fn::Sub': `\${${id}.Arn}:${ALIAS}` } : r;
        });
  for (const r of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::EventInvokeConfig')) {
    const alias = aliases[r.Properties.FunctionName?.Ref];
    if (!alias) continue;
    r.Properties.Qualifier = ALIAS;
    r.DependsOn = [...new Set([...[r.DependsOn ?? []].flat(), alias])];
  }
}

// `node` with each reference to a function's ARN (or, as a permission's FunctionName, its name)
// made a reference to its alias's ARN.
function toAliases(node, aliases) {
  if (Array.isArray(node)) return node.map((v) => toAliases(v, aliases));
  if (!node || typeof node !== 'object') return node;
  const getAtt = node['Fn::GetAtt'];
  if (Array.isArray(getAtt) && getAtt[1] === 'Arn' && aliases[getAtt[0]]) return { Ref: aliases[getAtt[0]] };
  if (typeof node.Ref === 'string' && aliases[node.Ref]) return { Ref: aliases[node.Ref] };
  const sub = node['Fn::Sub'];
  if (typeof sub === 'string') return { 'Fn::Sub': sub.replace(/\$\{(\w+)\.Arn\}/g, (whole, id) => (aliases[id] ? `\${${aliases[id]}}` : whole)) };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, toAliases(v, aliases)]));
}

// Any update allowed but the replacement or deletion of what holds data or keys.
function stackPolicy(resources) {
  const kept = Object.keys(resources).filter((id) => PROTECTED.test(resources[id].Type) || AUDIT_STORE(id, resources[id]));
  return [
    { Effect: 'Allow', Principal: '*', Action: 'Update:*', Resource: '*' },
    { Effect: 'Deny', Principal: '*', Action: ['Update:Replace', 'Update:Delete'], Resource: kept.sort().map((id) => `LogicalResourceId/${id}`) },
  ];
}

module.exports = SafeDeploy;
