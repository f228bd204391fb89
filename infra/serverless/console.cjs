'use strict';

const { setting } = require('./settings.cjs');

// The console's sign-in is Amazon Cognito's (infra/resources.yml), which LocalStack's free image does
// not serve: CONSOLE_ENABLED=false (localstack/deploy.sh) leaves the user pool and its authorizer
// out, and closes the console's API route to all but IAM principals (none is given it), so that the
// page loads and no request reaches the Admin API through it.
class ConsoleSignIn {
  constructor(serverless) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        if (setting('CONSOLE_ENABLED') === 'true') return;
        const template = serverless.service.provider.compiledCloudFormationTemplate;
        withoutSignIn(template.Resources, template.Outputs ?? {});
      },
    };
  }
}

function withoutSignIn(resources, outputs) {
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type.startsWith('AWS::Cognito::') || id === 'ConsoleAuthorizer') delete resources[id];
    if (r.Type === 'AWS::ApiGateway::Method' && r.Properties.AuthorizationType === 'COGNITO_USER_POOLS') {
      r.Properties.AuthorizationType = 'AWS_IAM';
      delete r.Properties.AuthorizerId;
      r.DependsOn = (r.DependsOn ?? []).filter((d) => d !== 'ConsoleAuthorizer');
    }
  }
  // No pool: no function takes an operator's token.
  for (const r of Object.values(resources)) {
    const variables = r.Type === 'AWS::Lambda::Function' ? r.Properties.Environment?.Variables : undefined;
    for (const name of ['CONSOLE_SIGN_IN_URL', 'CONSOLE_CLIENT_ID', 'CONSOLE_USER_POOL_ID']) delete variables?.[name];
  }
  delete outputs.ConsoleUrl;
  delete outputs.ConsoleUserPoolId;
}

module.exports = ConsoleSignIn;
