'use strict';

// The functions' roles, from custom.roles (the Admin routes', from their declarations in
// lib/api/routes, then infra/roles.yml's): each a map from a resource to the
// actions its functions call on it, written without the service's prefix, which the resource's
// type gives. A resource is a logical id of the template (a table, a queue, the bus, a function),
// `<table>/index` (its indexes), `<table>/stream`, a bucket, `<bucket>/objects` (its objects), `secrets` (names under SECRETS_PREFIX, as the
// roles name them by ARN pattern, so that retained secrets match too; `secrets <pattern>` for
// other calls than reading), an IAM-authorized route, `<RestApi> <METHOD> <path>`, or
// `ApiGatewayRestApi functions` (lambda actions on every function that serves a route of the Admin
// API, the `http` events, but the role's own: the console hands each request to its route's). Each becomes one AWS::IAM::Role with one statement a resource,
// besides the logs and X-Ray that every function writes. Every role is under the stage's IAM path
// (rolePath) and named `<service>-<stage>-<logical id>` (roleName), so that the key policy and the
// tables' resource policies can name each by its ARN (encryption.cjs, data-access.cjs) without a
// reference to it (the roles name the tables and queues that use the key: a reference would be a cycle). Packaging fails on a
// resource, a role or a function's role that does not exist, and on a role no function has.
const SERVICE = {
  'AWS::DynamoDB::Table': 'dynamodb',
  'AWS::SQS::Queue': 'sqs',
  'AWS::Events::EventBus': 'events',
  'AWS::S3::Bucket': 's3',
  'AWS::Lambda::Function': 'lambda',
};
// The parts of a resource a role may name: a table's indexes and stream, a bucket's objects.
const PARTS = { dynamodb: ['index', 'stream'], s3: ['objects'] };
const ROUTE = /^(\w+) ([A-Z]+) (\/\S*)$/;
// `secrets <name pattern>: [actions]`: other calls than reading, on the secrets the pattern names
// (a tenant's, made and deleted at run time: `secrets tenants/*: [CreateSecret, DeleteSecret]`).
const SECRETS_OF = /^secrets (\S+)$/;
const ADMIN_FUNCTIONS = 'ApiGatewayRestApi functions';

class FunctionRoles {
  constructor(serverless, options) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { service } = serverless;
        const stage = options.stage ?? service.provider.stage;
        const prefix = service.provider.environment?.SECRETS_PREFIX || `${service.service}/${stage}/`;
        const functions = Object.fromEntries(Object.entries(service.functions).map(([name, f]) => [name, f.role]));
        const naming = serverless.getProvider('aws').naming;
        // The Admin API's functions (by logical id), with their roles.
        // (/graphql's function is not one: the console hands requests to routes, never to it.)
        const adminFunctions = Object.entries(service.functions)
          .filter(([, f]) => (f.events ?? []).some((e) => e.http && !/^\/?graphql$/.test(e.http.path)))
          .map(([name, f]) => ({ id: naming.getLambdaLogicalId(name), role: f.role }));
        const resources = service.provider.compiledCloudFormationTemplate.Resources;
        const { roles, twice } = mergedRoles(service.custom?.roles ?? {});
        const names = { path: rolePath(service.service, stage), prefix: `${service.service}-${stage}-` };
        const problems = [...twice, ...addRoles(resources, roles, functions, adminFunctions, prefix, names)];
        // A function's Role (Fn::GetAtt) already makes it wait for its role.
        for (const r of Object.values(resources))
          if (r.Type === 'AWS::Lambda::Function' && Array.isArray(r.DependsOn))
            r.DependsOn = r.DependsOn.filter((d) => d !== r.Properties.Role?.['Fn::GetAtt']?.[0]);
        if (problems.length) throw new serverless.classes.Error(`custom.roles (lib/api/routes, infra/roles.yml):\n  ${problems.join('\n  ')}`);
      },
    };
  }
}

// custom.roles as one map: a map, or a list of maps (the Admin routes' from their declarations,
// then infra/roles.yml's), where a role is named once.
function mergedRoles(custom) {
  const twice = [];
  const roles = {};
  for (const part of [].concat(custom)) {
    for (const [name, access] of Object.entries(part ?? {})) {
      if (name in roles) twice.push(`${name}: declared twice`);
      roles[name] = access;
    }
  }
  return { roles, twice };
}

// The IAM path of the stage's roles.
const rolePath = (service, stage) => `/${service}/${stage}/`;

// The name of the stage's role `id` (IAM takes 64 characters).
function roleName(prefix, id) {
  const name = `${prefix}${id}`;
  if (name.length > 64) throw new Error(`${name}: an IAM role's name takes 64 characters at most (a shorter stage name fits)`);
  return name;
}
// The ARN of the stage's role `id`, without a reference to it.
const roleArn = ({ path, prefix }, id) => ({ 'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role${path}${roleName(prefix, id)}` });

// A role of the stage (`names`: its path and its names' prefix), `id` in the template, that an AWS
// service assumes, with AWS's managed policies named.
const serviceRole = (principal, names, id, managedPolicies) => ({
  Type: 'AWS::IAM::Role',
  Properties: {
    Path: names.path,
    RoleName: roleName(names.prefix, id),
    AssumeRolePolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: principal }, Action: 'sts:AssumeRole' }] },
    ManagedPolicyArns: managedPolicies.map((policy) => ({ 'Fn::Sub': `arn:\${AWS::Partition}:iam::aws:policy/${policy}` })),
  },
});

// Adds the roles to `resources`; returns what is wrong with them.
function addRoles(resources, roles, functions, adminFunctions, secretsPrefix, names) {
  const problems = [];
  const statement = (key, actions, role) => {
    const list = (service) => actions.map((a) => `${service}:${a}`);
    if (key === ADMIN_FUNCTIONS) {
      const arns = adminFunctions.filter((f) => f.role !== role).map((f) => ({ 'Fn::GetAtt': [f.id, 'Arn'] }));
      return { Effect: 'Allow', Action: list('lambda'), Resource: arns };
    }
    if (key === 'secrets') {
      const arn = (name) => ({ 'Fn::Sub': `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:${secretsPrefix}${name}-??????` });
      return { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: actions.map(arn) };
    }
    const secrets = SECRETS_OF.exec(key);
    if (secrets) {
      const arn = `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:${secretsPrefix}${secrets[1]}`;
      return { Effect: 'Allow', Action: list('secretsmanager'), Resource: [{ 'Fn::Sub': arn }] };
    }
    const route = ROUTE.exec(key);
    if (route && resources[route[1]]?.Type === 'AWS::ApiGateway::RestApi') {
      // A path variable ({tenant}) is any one segment: `*` in the ARN.
      const arn = `arn:\${AWS::Partition}:execute-api:\${AWS::Region}:\${AWS::AccountId}:\${${route[1]}}/*/${route[2]}${route[3].replace(/\{[^}]+\}/g, '*')}`;
      return { Effect: 'Allow', Action: list('execute-api'), Resource: [{ 'Fn::Sub': arn }] };
    }
    const [id, part] = key.split('/');
    const service = SERVICE[resources[id]?.Type];
    if (!service || (part && !PARTS[service]?.includes(part))) {
      problems.push(`${key}: no such table, queue, bus, bucket, function or route`);
      return undefined;
    }
    const arn = { 'Fn::GetAtt': [id, 'Arn'] };
    const resource =
      part === 'stream'
        ? { 'Fn::GetAtt': [id, 'StreamArn'] }
        : part === 'index'
          ? { 'Fn::Join': ['/', [arn, 'index', '*']] }
          : part === 'objects'
            ? { 'Fn::Join': ['/', [arn, '*']] }
            : arn;
    return { Effect: 'Allow', Action: list(service), Resource: [resource] };
  };
  for (const [name, access] of Object.entries(roles)) {
    if (resources[name]) problems.push(`${name}: the template already has a resource of that name`);
    const statements = Object.entries(access ?? {})
      .map(([key, actions]) => statement(key, actions, name))
      .filter(Boolean);
    resources[name] = serviceRole('lambda.amazonaws.com', names, name, ['service-role/AWSLambdaBasicExecutionRole', 'AWSXRayDaemonWriteAccess']);
    if (statements.length) resources[name].Properties.Policies = [{ PolicyName: name, PolicyDocument: { Version: '2012-10-17', Statement: statements } }];
  }
  const used = new Set(Object.values(functions));
  for (const [fn, role] of Object.entries(functions)) if (!roles[role]) problems.push(`${fn}: its role ${role} is not in custom.roles`);
  for (const name of Object.keys(roles)) if (!used.has(name)) problems.push(`${name}: no function has this role`);
  return problems;
}

module.exports = FunctionRoles;
module.exports.serviceRole = serviceRole;
module.exports.roleArn = roleArn;
module.exports.stageNames = (service, stage) => ({ path: rolePath(service, stage), prefix: `${service}-${stage}-` });
module.exports.mergedRoles = mergedRoles;
