'use strict';

// Every REST API of the template answers API Gateway's own errors (no such route, throttled, too
// large, timed out, and the rest) as problem+json, from one definition (../gateway-responses.json),
// which the local gateway renders too. An API added to the template gets them without a list here.
const DEFINITIONS = require('../gateway-responses.json');

class GatewayResponses {
  constructor(serverless) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => addResponses(serverless.service.provider.compiledCloudFormationTemplate.Resources),
    };
  }
}

const camel = (type) => type.toLowerCase().replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase());

function problemBody(type) {
  const { status, code, title, detail } = DEFINITIONS[type];
  return { type: `urn:payment-service:problem:${code}`, title, ...(status && { status }), code, detail };
}

function addResponses(resources) {
  const apis = Object.keys(resources).filter((id) => resources[id].Type === 'AWS::ApiGateway::RestApi');
  for (const api of apis) {
    for (const type of Object.keys(DEFINITIONS).filter((t) => t !== '_')) {
      const { status } = DEFINITIONS[type];
      // The request id (API Gateway's, a UUID) is the one value filled in: it finds the access log line.
      const body = JSON.stringify({ ...problemBody(type), requestId: '$context.requestId' });
      resources[`${api}${camel(type)}Response`] = {
        Type: 'AWS::ApiGateway::GatewayResponse',
        Properties: {
          RestApiId: { Ref: api },
          ResponseType: type,
          ...(status && { StatusCode: String(status) }),
          ResponseParameters: { 'gatewayresponse.header.Content-Type': "'application/problem+json'" },
          ResponseTemplates: { 'application/json': body },
        },
      };
    }
  }
}

module.exports = GatewayResponses;
module.exports.problemBody = problemBody;
