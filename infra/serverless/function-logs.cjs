'use strict';

// Every function logs to one log group, FunctionLogs (infra/resources.yml: kept LOG_RETENTION_DAYS,
// encrypted with the stage's key, retained when the stack is removed), rather than to a group of
// its own: Lambda names each log stream after its function (<date>/<function name>[<version>]…), so
// nothing is lost, and the stack keeps one log group, not one a function (each a resource of
// CloudFormation's 500). The groups serverless makes for each function are left out.
const LOG_GROUP = 'FunctionLogs';

class FunctionLogs {
  constructor(serverless) {
    this.hooks = {
      'after:aws:package:finalize:mergeCustomProviderResources': () => {
        const resources = serverless.service.provider.compiledCloudFormationTemplate.Resources;
        if (!resources[LOG_GROUP]) throw new serverless.classes.Error(`infra/resources.yml has no ${LOG_GROUP} for the functions' logs`);
        const own = new Set(
          Object.keys(resources).filter(
            (id) => resources[id].Type === 'AWS::Logs::LogGroup' && /^\/aws\/lambda\//.test(resources[id].Properties?.LogGroupName ?? ''),
          ),
        );
        for (const id of own) delete resources[id];
        for (const r of Object.values(resources)) {
          if (r.Type !== 'AWS::Lambda::Function') continue;
          r.Properties.LoggingConfig = { ...r.Properties.LoggingConfig, LogGroup: { Ref: LOG_GROUP } };
          if (Array.isArray(r.DependsOn)) r.DependsOn = r.DependsOn.filter((d) => !own.has(d));
          if (!r.DependsOn?.length) delete r.DependsOn;
        }
      },
    };
  }
}

module.exports = FunctionLogs;
