'use strict';

const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

// CloudFormation takes 500 resources a stack. Two sets of resources go to stacks of their own,
// nested in the service's, so that the service's keeps room for the APIs, functions and data that
// grow with each route:
// - OpenPayments: the resource server's and the authorization server's routes (their `/t/{tenant}`
//   copies too), deployments, stages, gateway responses, authorizers, the permissions that let
//   them invoke their functions, their custom domains' mappings and WAF associations. The REST APIs
//   themselves stay in the service's stack: the resource server's roles name the authorization
//   server's API (they may call its introspection), and a role in the service's stack that needed
//   the nested stack, which needs the functions, which need their roles, would be a cycle. The
//   functions stay too, each with its role and alarms, like every other function.
// - Deployments: the functions' versions and aliases, CodeDeploy's application and deployment
//   groups and the new versions' errors alarms they roll back on (./safe-deploy.cjs), and the permissions that let the Admin API and the connector invoke
//   the aliases (the Open Payments APIs' are in OpenPayments).
// - Monitoring: the alarms and the dashboard (./alarms.cjs), the rule the key-state alarm counts and
//   WAF's log (./edge.cjs), which nothing else refers to.
// Each nested template is written beside the service's at packaging (no AWS call), named by a hash
// of its content, and uploaded to the deployment bucket by `serverless deploy` before the stack is
// updated; an unchanged one keeps its name, so CloudFormation leaves that nested stack as it is.
// What a nested stack's resources refer to in the service's stack (functions, APIs, queues, the
// log group, the web ACL) it gets as parameters; what the rest of the template refers to in them
// it gives as outputs (Fn::GetAtt [Stack, Outputs.X]). Open Payments goes first, so that an alarm
// on one of its resources would reach it through the service's stack.
const OPEN_PAYMENTS_APIS = ['ResourceServerApi', 'AuthServerApi'];
const API_PART =
  /^AWS::(ApiGateway::(Resource|Method|Deployment|Stage|GatewayResponse|Authorizer|Model|RequestValidator|BasePathMapping)|Lambda::Permission|WAFv2::WebACLAssociation)$/;
const STACKS = [
  {
    name: 'OpenPayments',
    file: 'open-payments-stack.json',
    description: "The Open Payments resource server's and authorization server's routes and stages (a stack nested in the payment service's)",
    holds: (r) => API_PART.test(r.Type) && OPEN_PAYMENTS_APIS.some((api) => references(r).has(api)),
    // An API has each path, stage, gateway response and WAF association once: they cannot be made
    // in the nested stack while the service's still holds them (stillHeld).
    madeOnce: true,
  },
  {
    name: 'Deployments',
    file: 'deployments-stack.json',
    description:
      "The payment service's function versions, aliases, CodeDeploy deployment groups and their alarms, and the permissions to invoke them (a stack nested in its own)",
    // (A schedule's permission names its rule, which names an alias here: it stays, or that is a cycle.)
    holds: (r) =>
      /^AWS::(Lambda::(Version|Alias)|CodeDeploy::(Application|DeploymentGroup))$/.test(r.Type) ||
      (r.Type === 'AWS::CloudWatch::Alarm' &&
        (r.Properties.Metrics ?? []).some((m) => m.MetricStat?.Metric.Dimensions.some((d) => d.Name === 'ExecutedVersion'))) ||
      (r.Type === 'AWS::Lambda::Permission' && r.Properties.Principal === 'apigateway.amazonaws.com'),
  },
  {
    name: 'Monitoring',
    file: 'monitoring-stack.json',
    description: 'The alarms and the dashboard of the payment service (a stack nested in its own)',
    holds: (r, id) => /^AWS::CloudWatch::(Alarm|Dashboard)$/.test(r.Type) || ['KeyStateRule', 'WafLogs', 'WafLogging'].includes(id),
  },
];

class NestedStacks {
  constructor(serverless, options) {
    const provider = serverless.getProvider('aws');
    const dir = () => path.join(serverless.serviceDir, '.serverless');
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { service } = serverless;
        const template = service.provider.compiledCloudFormationTemplate;
        const prefix = `${provider.getDeploymentPrefix()}/${service.service}/${options.stage ?? service.provider.stage}/nested`;
        fs.mkdirSync(dir(), { recursive: true });
        for (const stack of STACKS) {
          const nested = nest(template, stack);
          if (!nested) continue;
          const body = `${JSON.stringify(nested, null, 2)}\n`;
          const key = `${prefix}/${hash(body)}.json`;
          template.Resources[stack.name].Metadata = { Key: key };
          template.Resources[stack.name].Properties.TemplateURL = urlOf(service.provider.deploymentBucket, key);
          fs.writeFileSync(path.join(dir(), stack.file), body);
        }
      },
      'after:aws:deploy:deploy:uploadArtifacts': async () => {
        if (serverless.service.provider.shouldNotDeploy) return;
        const { Resources } = serverless.service.provider.compiledCloudFormationTemplate;
        const stacks = STACKS.filter((s) => Resources[s.name]);
        const bodies = Object.fromEntries(stacks.map(({ name, file }) => [name, fs.readFileSync(path.join(dir(), file))]));
        const sdk = (client) => require(require.resolve(client, { paths: [require.resolve('serverless')] }));
        const config = await provider.getAwsSdkV3Config();
        const { CloudFormationClient, paginateListStackResources } = sdk('@aws-sdk/client-cloudformation');
        const deployed = [];
        const pages = paginateListStackResources({ client: new CloudFormationClient(config) }, { StackName: provider.naming.getStackName() });
        for await (const page of pages) deployed.push(...(page.StackResourceSummaries ?? []));
        const nested = Object.fromEntries(stacks.filter((s) => s.madeOnce).map(({ name }) => [name, JSON.parse(bodies[name])]));
        const problems = stillHeld(deployed, nested);
        if (problems.length) throw new serverless.classes.Error(`${problems.join('\n')}\nSee docs/deploy.md, "Upgrading a deployed stack".`);
        const { S3Client, PutObjectCommand } = sdk('@aws-sdk/client-s3');
        const s3 = new S3Client(config);
        const Bucket = await provider.getServerlessDeploymentBucketName();
        for (const { name } of stacks) {
          await s3.send(new PutObjectCommand({ Bucket, Key: Resources[name].Metadata.Key, Body: bodies[name], ContentType: 'application/json' }));
        }
      },
    };
  }
}

const hash = (text) => createHash('sha256').update(text).digest('hex').slice(0, 16);
const urlOf = (bucket, key) => ({
  'Fn::Join': ['', ['https://', bucket ?? { Ref: 'ServerlessDeploymentBucket' }, '.s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, `/${key}`]],
});

// `node` with every reference to a resource (Ref, Fn::GetAtt, and ${Id} or ${Id.Attribute} in
// Fn::Sub) passed to `replace(id, attribute)`, which returns what it becomes: `Name` (Ref: Name),
// `Id.Attribute` (Fn::GetAtt: [Id, Attribute]), or undefined to keep it.
function rewrite(node, replace) {
  if (Array.isArray(node)) return node.map((v) => rewrite(v, replace));
  if (!node || typeof node !== 'object') return node;
  const as = (target) => {
    const dot = target.indexOf('.');
    return dot < 0 ? { Ref: target } : { 'Fn::GetAtt': [target.slice(0, dot), target.slice(dot + 1)] };
  };
  if (typeof node.Ref === 'string') {
    const target = replace(node.Ref);
    return target ? as(target) : node;
  }
  const getAtt = node['Fn::GetAtt'];
  if (getAtt) {
    const [id, attribute] = typeof getAtt === 'string' ? getAtt.split(/\.(.*)/) : getAtt;
    const target = replace(id, attribute);
    return target ? as(target) : node;
  }
  const sub = node['Fn::Sub'];
  if (sub) {
    const [text, variables = {}] = typeof sub === 'string' ? [sub] : sub;
    const replaced = text.replace(/\$\{(\w+)(?:\.([\w.]+))?\}/g, (whole, id, attribute) =>
      variables[id] ? whole : `\${${replace(id, attribute) ?? id + (attribute ? `.${attribute}` : '')}}`,
    );
    return { 'Fn::Sub': typeof sub === 'string' ? replaced : [replaced, rewrite(variables, replace)] };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v, replace)]));
}

// The logical ids a resource names (DependsOn included).
function references(resource) {
  const ids = new Set([resource.DependsOn ?? []].flat());
  rewrite(resource, (id) => {
    ids.add(id);
  });
  return ids;
}

// Moves the resources `holds` picks out of `template` into the nested template it returns, and puts
// the stack named `name` that holds them in their place (its TemplateURL is set by the caller). No
// resource picked: no stack.
function nest(template, { name, description, holds }) {
  const root = template.Resources;
  const moved = Object.fromEntries(Object.entries(root).filter(([id, r]) => holds(r, id)));
  if (!Object.keys(moved).length) return undefined;
  for (const [id, r] of Object.entries(moved)) {
    // A condition would have to be declared in both stacks: none is needed yet.
    if (r.Condition || JSON.stringify(r).includes('"Fn::If"')) throw new Error(`${id} has a condition: it cannot go to the nested stack ${name}`);
    delete root[id];
  }
  const parameters = {};
  const dependsOn = new Set();
  // What the moved resources name in the service's stack becomes a parameter (its Ref or
  // attribute); what they wait for there, the nested stack waits for.
  const resources = rewrite(moved, (id, attribute) => {
    if (!root[id]) return undefined;
    const parameter = `${id}${attribute ?? ''}`.replace(/\W/g, '');
    parameters[parameter] = attribute ? { 'Fn::GetAtt': [id, attribute] } : { Ref: id };
    return parameter;
  });
  for (const r of Object.values(resources)) {
    const [inside, outside] = partition([r.DependsOn ?? []].flat(), (d) => moved[d]);
    for (const d of outside) dependsOn.add(d);
    if (inside.length) r.DependsOn = inside;
    else delete r.DependsOn;
  }
  // What the rest of the template names in the moved resources becomes an output of the nested
  // stack, and waiting for one of them waits for the stack.
  const outputs = {};
  const rest = rewrite({ Resources: root, Outputs: template.Outputs ?? {} }, (id, attribute) => {
    if (!moved[id]) return undefined;
    const output = `${id}${attribute ?? ''}`.replace(/\W/g, '');
    outputs[output] = { Value: attribute ? { 'Fn::GetAtt': [id, attribute] } : { Ref: id } };
    return `${name}.Outputs.${output}`;
  });
  for (const r of Object.values(rest.Resources)) {
    if (!r.DependsOn) continue;
    // (Not when it already names one of the stack's outputs, which makes it wait.)
    const named = references({ ...r, DependsOn: undefined }).has(name);
    const waits = [...new Set([r.DependsOn].flat().map((d) => (moved[d] ? name : d)))].filter((d) => !(named && d === name));
    if (!waits.length) {
      delete r.DependsOn;
      continue;
    }
    r.DependsOn = Array.isArray(r.DependsOn) ? waits : waits[0];
  }
  template.Resources = { ...rest.Resources, [name]: { Type: 'AWS::CloudFormation::Stack', Properties: { TemplateURL: '', Parameters: parameters } } };
  if (dependsOn.size) template.Resources[name].DependsOn = [...dependsOn];
  if (template.Outputs) template.Outputs = rest.Outputs;
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description: description,
    // In order of name: the template's hash must not hang on the order serverless made things in.
    Parameters: Object.fromEntries(
      Object.keys(parameters)
        .sort()
        .map((p) => [p, { Type: 'String' }]),
    ),
    Resources: resources,
    ...(Object.keys(outputs).length && { Outputs: Object.fromEntries(Object.entries(outputs).sort(([a], [b]) => (a < b ? -1 : 1))) }),
  };
}

// A stage deployed before a set was nested holds the set's resources itself, and CloudFormation
// would make them in the nested stack before it deleted them from the service's: API Gateway
// refuses a second path or stage of one name, and a gateway response or WAF association made again
// would be undone by the old one's deletion (or by the rollback). So such a deploy stops before
// anything changes, naming what `deployed` (the service's stack's resources) still holds of
// `nested` (each such nested template by its stack's name). (Alarms are made anew, then the old
// ones deleted: the monitoring stack needs no such check.)
function stillHeld(deployed, nested) {
  const held = new Set(deployed.filter((r) => r.ResourceType !== 'AWS::CloudFormation::Stack').map((r) => r.LogicalResourceId));
  return Object.entries(nested).flatMap(([name, t]) => {
    const ids = Object.keys(t.Resources).filter((id) => held.has(id));
    return ids.length
      ? [`The deployed stack holds ${ids.length} resources itself that this deploy moves to the nested stack ${name} (${ids.slice(0, 3).join(', ')}…).`]
      : [];
  });
}

const partition = (items, test) => [items.filter(test), items.filter((x) => !test(x))];

module.exports = NestedStacks;
module.exports.STACKS = STACKS;
module.exports.nest = nest;
module.exports.stillHeld = stillHeld;
