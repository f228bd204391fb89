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
  const variables = resources.ConsoleLambdaFunction.Properties.Environment.Variables;
  delete variables.CONSOLE_SIGN_IN_URL;
  delete variables.CONSOLE_CLIENT_ID;
  delete outputs.ConsoleUrl;
  delete outputs.ConsoleUserPoolId;
}

module.exports = ConsoleSignIn;
