'use strict';

const { createHash } = require('node:crypto');

// An AWS::ApiGateway::Deployment is a snapshot of its REST API taken when it is created; CloudFormation
// updates a deployment whose logical id stays the same in place, which takes no new snapshot. So each
// REST API (the Admin API's too, which serverless names by the time of packaging, a new deployment
// every time) gets a deployment whose logical id ends in a hash of everything that API is made of:
// itself (its resource policy), its resources, methods and integrations, gateway responses,
// authorizers, models and validators. A change to any of them is a new deployment, and the stage
// moves to it; an unchanged API is not redeployed.
const PARTS = /^AWS::ApiGateway::(RestApi|Resource|Method|GatewayResponse|Authorizer|Model|RequestValidator)$/;

class ApiDeployments {
  constructor(serverless) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const template = serverless.service.provider.compiledCloudFormationTemplate;
        hashDeployments(template);
      },
    };
  }
}

function hashDeployments(template) {
  const resources = template.Resources;
  for (const [id, deployment] of Object.entries(resources)) {
    if (deployment.Type !== 'AWS::ApiGateway::Deployment') continue;
    const api = deployment.Properties.RestApiId?.Ref;
    if (!api) continue;
    const parts = Object.entries(resources)
      .filter(([partId, r]) => PARTS.test(r.Type) && (partId === api || r.Properties?.RestApiId?.Ref === api))
      .sort(([a], [b]) => (a < b ? -1 : 1));
    // (Not what a part waits for: the snapshot is the same, and nesting may change it.)
    const content = parts.map(([partId, r]) => [partId, { ...r, DependsOn: undefined }]);
    const hash = createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 12);
    const newId = `${id.replace(/\d+$/, '')}${hash}`; // (less serverless's time)
    delete resources[id];
    resources[newId] = { ...deployment, Properties: { ...deployment.Properties, Description: `${api} ${hash}` } };
    renameRefs(template, id, newId);
  }
}

// Every { Ref: from } (and DependsOn naming it) in the template now names `to`.
function renameRefs(node, from, to) {
  if (Array.isArray(node)) for (const v of node) renameRefs(v, from, to);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'Ref' && v === from) node[k] = to;
      else if (k === 'DependsOn') node[k] = Array.isArray(v) ? v.map((d) => (d === from ? to : d)) : v === from ? to : v;
      else renameRefs(v, from, to);
    }
  }
}

module.exports = ApiDeployments;
module.exports.hashDeployments = hashDeployments;
