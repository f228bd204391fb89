'use strict';

// serverless.yml's `http` events build the Admin API (ApiGatewayRestApi) and a new deployment on
// every deploy, which would create the stage itself with API Gateway's defaults. The stage is
// declared in infra/resources.yml instead (AdminApiStage: access logs, tracing, throttling, like
// the other APIs' stages); this points it at that deployment and leaves the stage to it.
class AdminApiStage {
  constructor(serverless) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const resources = serverless.service.provider.compiledCloudFormationTemplate.Resources;
        const [deploymentId, deployment] =
          Object.entries(resources).find(([, r]) => r.Type === 'AWS::ApiGateway::Deployment' && r.Properties.RestApiId?.Ref === 'ApiGatewayRestApi') ?? [];
        if (!deployment || !resources.AdminApiStage) {
          throw new serverless.classes.Error('The template needs both the Admin API deployment (http events) and AdminApiStage (infra/resources.yml)');
        }
        delete deployment.Properties.StageName;
        resources.AdminApiStage.Properties.DeploymentId = { Ref: deploymentId };
      },
    };
  }
}

module.exports = AdminApiStage;
