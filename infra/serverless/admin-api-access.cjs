'use strict';

// The Admin API moves money; its HMAC signature is checked inside Lambda, after API Gateway has
// passed the request on. So, on every stage but local, API Gateway itself lets only the FSP's
// networks in: ADMIN_ALLOWED_CIDRS (comma-separated CIDRs) becomes the API's resource policy,
// denying every other source address. ADMIN_OPEN_TO_INTERNET=1 says on purpose that there is no
// such list (deploy-checks.cjs refuses neither set).
const CIDR = /^(\d{1,3}(\.\d{1,3}){3}\/\d{1,2}|[0-9a-f:]+\/\d{1,3})$/i;

function allowedCidrs(value) {
  const cidrs = (value ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const bad = cidrs.filter((c) => !CIDR.test(c));
  return { cidrs, bad };
}

class AdminApiAccess {
  constructor(serverless) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const { cidrs } = allowedCidrs(process.env.ADMIN_ALLOWED_CIDRS);
        const api = serverless.service.provider.compiledCloudFormationTemplate.Resources.ApiGatewayRestApi;
        if (!cidrs.length || !api) return;
        api.Properties.Policy = {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Principal: '*', Action: 'execute-api:Invoke', Resource: 'execute-api:/*' },
            {
              Effect: 'Deny',
              Principal: '*',
              Action: 'execute-api:Invoke',
              Resource: 'execute-api:/*',
              Condition: { NotIpAddress: { 'aws:SourceIp': cidrs } },
            },
          ],
        };
      },
    };
  }
}

module.exports = AdminApiAccess;
module.exports.allowedCidrs = allowedCidrs;
