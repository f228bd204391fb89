'use strict';

const { setting, roleArnList } = require('./settings.cjs');
const { stageNames } = require('./function-roles.cjs');

// A tenant's secrets are made at run time (lib/platform/secrets.ts createTenantSecrets) as the
// deployment's are made here: on the data key (encryption.cjs: KMS_KEY_ARN, or the stage's
// StageKey), rotated by the function the rotation schedules name (its alias, safe-deploy.cjs), and
// readable only by the service's roles and the break-glass ones (BREAK_GLASS_ROLE_ARNS), as the
// tables are (data-access.cjs). The functions that make them (whose role may CreateSecret) are given
// those three in TENANT_SECRETS_KMS_KEY_ARN, TENANT_SECRETS_ROTATION_ARN and TENANT_SECRETS_READERS;
// no other function carries them. The service's roles are named by the stage's role path (every
// one is under it: function-roles.cjs), as a function's environment could not hold each one's ARN;
// the data key's policy, which a secret's value cannot be read without, names each by its ARN.
const SETTINGS = ['TENANT_SECRETS_KMS_KEY_ARN', 'TENANT_SECRETS_ROTATION_ARN', 'TENANT_SECRETS_READERS'];

class TenantSecrets {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { service } = serverless;
        const resources = service.provider.compiledCloudFormationTemplate.Resources;
        const values = {
          TENANT_SECRETS_KMS_KEY_ARN: setting('KMS_KEY_ARN') ?? { 'Fn::GetAtt': ['StageKey', 'Arn'] },
          TENANT_SECRETS_ROTATION_ARN: rotationArn(resources),
          TENANT_SECRETS_READERS: readers(stageNames(service.service, options.stage ?? service.provider.stage)),
        };
        for (const fn of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
          const variables = fn.Properties.Environment?.Variables ?? {};
          for (const name of SETTINGS) delete variables[name];
          if (makesSecrets(resources[fn.Properties.Role?.['Fn::GetAtt']?.[0]])) Object.assign(variables, values);
        }
      },
    };
  }
}

// Whether a role may make secrets.
const makesSecrets = (role) =>
  (role?.Properties.Policies ?? []).some((p) => p.PolicyDocument.Statement.some((st) => [st.Action].flat().includes('secretsmanager:CreateSecret')));

// The function the template's rotation schedules call (through its alias where it has one), by an
// ARN that refers to no alias: the alias is in the Deployments stack, which waits for the functions.
function rotationArn(resources) {
  const arns = Object.values(resources)
    .filter((r) => r.Type === 'AWS::SecretsManager::RotationSchedule')
    .map((r) => JSON.stringify(r.Properties.RotationLambdaARN));
  if (!arns.length || new Set(arns).size > 1) throw new Error('tenant-secrets.cjs: the rotation schedules must name one rotation function');
  const arn = JSON.parse(arns[0]);
  const alias = resources[arn.Ref];
  if (alias?.Type !== 'AWS::Lambda::Alias') return arn;
  const fn = Object.keys(resources).find(
    (id) => resources[id].Type === 'AWS::Lambda::Function' && resources[id].Properties.FunctionName === alias.Properties.FunctionName,
  );
  return { 'Fn::Sub': `\${${fn}.Arn}:${alias.Properties.Name}` };
}

// The stage's roles (by their path) and the break-glass ones, comma-separated.
const readers = (names) => ({
  'Fn::Sub': [`arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role${names.path}*`, ...roleArnList('BREAK_GLASS_ROLE_ARNS')].join(','),
});

module.exports = TenantSecrets;
