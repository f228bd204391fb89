'use strict';

const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

// The alarms and the dashboard (./alarms.cjs) go to a stack of their own, nested in the service's
// (Monitoring): about 150 resources that nothing else refers to, which would otherwise take
// CloudFormation's 500 a stack from the APIs, functions and data that grow with each route. The
// nested template is written beside the service's at packaging (no AWS call), named by a hash of
// its content, and uploaded to the deployment bucket by `serverless deploy` before the stack is
// updated; an unchanged one keeps its name, so CloudFormation leaves the nested stack as it is.
// What it refers to in the service's stack (functions, queues, tables, the alarm topic) it gets as
// parameters.
const NESTED = /^AWS::CloudWatch::(Alarm|Dashboard)$/;
const STACK = 'Monitoring';
const FILE = 'monitoring-stack.json';

class MonitoringStack {
  constructor(serverless, options) {
    const provider = serverless.getProvider('aws');
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { service } = serverless;
        const template = service.provider.compiledCloudFormationTemplate;
        const nested = nest(template, service.provider.deploymentBucket);
        const body = `${JSON.stringify(nested, null, 2)}\n`;
        const key = `${provider.getDeploymentPrefix()}/${service.service}/${options.stage ?? service.provider.stage}/nested/${hash(body)}.json`;
        template.Resources[STACK].Metadata = { Key: key };
        template.Resources[STACK].Properties.TemplateURL = urlOf(service.provider.deploymentBucket, key);
        const dir = path.join(serverless.serviceDir, '.serverless');
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, FILE), body);
      },
      'after:aws:deploy:deploy:uploadArtifacts': async () => {
        if (serverless.service.provider.shouldNotDeploy) return;
        const { Key } = serverless.service.provider.compiledCloudFormationTemplate.Resources[STACK].Metadata;
        const { S3Client, PutObjectCommand } = require(require.resolve('@aws-sdk/client-s3', { paths: [require.resolve('serverless')] }));
        const s3 = new S3Client(await provider.getAwsSdkV3Config());
        const Body = fs.readFileSync(path.join(serverless.serviceDir, '.serverless', FILE));
        await s3.send(new PutObjectCommand({ Bucket: await provider.getServerlessDeploymentBucketName(), Key, Body, ContentType: 'application/json' }));
      },
    };
  }
}

const hash = (text) => createHash('sha256').update(text).digest('hex').slice(0, 16);
const urlOf = (bucket, key) => ({
  'Fn::Join': ['', ['https://', bucket ?? { Ref: 'ServerlessDeploymentBucket' }, '.s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, `/${key}`]],
});

// Moves the alarms and the dashboard out of `template` into the nested template it returns, and
// puts the stack that holds them in their place (its TemplateURL is set by the caller).
function nest(template, bucket) {
  const root = template.Resources;
  const moved = Object.fromEntries(Object.entries(root).filter(([, r]) => NESTED.test(r.Type)));
  for (const id of Object.keys(moved)) delete root[id];
  const parameters = {};
  // A reference to a resource of the service's stack becomes a parameter (its Ref or attribute).
  const param = (id, attribute) => {
    const name = `${id}${attribute ?? ''}`;
    parameters[name] = attribute ? { 'Fn::GetAtt': [id, attribute] } : { Ref: id };
    return name;
  };
  const local = (node) => {
    if (Array.isArray(node)) return node.map(local);
    if (!node || typeof node !== 'object') return node;
    if (typeof node.Ref === 'string' && root[node.Ref]) return { Ref: param(node.Ref) };
    const getAtt = node['Fn::GetAtt'];
    if (Array.isArray(getAtt) && root[getAtt[0]]) return { Ref: param(getAtt[0], getAtt[1]) };
    if (typeof node['Fn::Sub'] === 'string') {
      const text = node['Fn::Sub'].replace(/\$\{(\w+)(?:\.(\w+))?\}/g, (whole, id, attribute) => (root[id] ? `\${${param(id, attribute)}}` : whole));
      return { 'Fn::Sub': text };
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, local(v)]));
  };
  const resources = local(moved);
  root[STACK] = {
    Type: 'AWS::CloudFormation::Stack',
    Properties: { TemplateURL: urlOf(bucket, ''), Parameters: parameters },
  };
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description: 'The alarms and the dashboard of the payment service (a stack nested in its own)',
    Parameters: Object.fromEntries(Object.keys(parameters).map((name) => [name, { Type: 'String' }])),
    Resources: resources,
  };
}

module.exports = MonitoringStack;
module.exports.FILE = FILE;
