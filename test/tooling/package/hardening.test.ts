import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DOCS, disagreements, numbers } from '../../../infra/docs-numbers';
import { ROOT } from '../../../infra/local/start/serverless-config';
import { alarmsOf, BACKSTOP_MS, calledFunction, deployed, functionId, loadPackaged, ofType, PRODUCTION, packagedDir, refusal } from './packaged';

// What a bank's review asked of the template besides the production profile (issue 47: its
// "mediums", and the docs' numbers). The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe("the review's mediums", () => {
  it("logs WAF's decisions to a group kept as long as the functions' logs, encrypted, retained, without the headers that carry secrets", () => {
    const [[, logging], ...others] = ofType('AWS::WAFv2::LoggingConfiguration');
    expect(others).toEqual([]);
    expect(logging.Properties.ResourceArn).toEqual({ 'Fn::GetAtt': ['WebAcl', 'Arn'] });
    expect(logging.Properties.LogDestinationConfigs).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's substitution
      { 'Fn::Sub': 'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:${WafLogs}' },
    ]);
    const headers = logging.Properties.RedactedFields.map((f: any) => f.SingleHeader.Name);
    expect(headers).toEqual(expect.arrayContaining(['authorization', 'x-idp-secret', 'signature']));
    const group = deployed.WafLogs;
    expect(group).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(Number(group.Properties.RetentionInDays)).toBe(Number(PRODUCTION.LOG_RETENTION_DAYS));
    expect(group.Properties.RetentionInDays).toBe(deployed.FunctionLogs.Properties.RetentionInDays);
    expect(group.Properties.KmsKeyId).toEqual(deployed.FunctionLogs.Properties.KmsKeyId);
    expect(group.Properties.LogGroupName['Fn::Join'][1][0]).toMatch(/^aws-waf-logs-/); // WAF's requirement
  });

  it('alarms on silence where silence means failure (a stopped schedule, a day without a backup), and on failed backups, key state and lost deliveries', () => {
    const alarms = Object.fromEntries(alarmsOf());
    const schedules = ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.ScheduleExpression);
    const scheduled = schedules
      .filter(([, r]) => r.Properties.ScheduleExpression === 'rate(1 minute)')
      .map(([, r]) => calledFunction(r.Properties.Targets[0].Arn)!);
    expect(scheduled.length).toBeGreaterThanOrEqual(4);
    // A daily schedule (the audit digest) is silent most of any 5 minutes: no heartbeat.
    for (const [, r] of schedules.filter(([, r]) => r.Properties.ScheduleExpression.startsWith('cron(')))
      expect(alarms[`${calledFunction(r.Properties.Targets[0].Arn)}HeartbeatAlarm`]).toBeUndefined();
    for (const fn of scheduled) {
      expect(alarms[`${fn}HeartbeatAlarm`].Properties, fn).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Invocations',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
        ComparisonOperator: 'LessThanThreshold',
        Threshold: 1,
        TreatMissingData: 'breaching',
      });
    }
    const vaults = ofType('AWS::Backup::BackupVault').map(([id]) => id);
    expect(vaults).toEqual(['BackupVault']);
    expect(alarms.BackupVaultNoBackupAlarm.Properties).toMatchObject({
      Namespace: 'AWS/Backup',
      MetricName: 'NumberOfBackupJobsCompleted',
      Dimensions: [{ Name: 'BackupVaultName', Value: { Ref: 'BackupVault' } }],
      Period: 86400,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    const failed = alarms.BackupVaultJobsFailedAlarm.Properties.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric.MetricName);
    expect(failed.sort()).toEqual(['NumberOfBackupJobsAborted', 'NumberOfBackupJobsFailed', 'NumberOfCopyJobsFailed']);
    // Only those two treat missing data as breaching: every other alarm's metric is silent when all is well.
    const breaching = Object.keys(alarms).filter((id) => alarms[id].Properties.TreatMissingData === 'breaching');
    expect(breaching.sort()).toEqual([...scheduled.map((fn) => `${fn}HeartbeatAlarm`), 'BackupVaultNoBackupAlarm'].sort());

    const keys = ofType('AWS::KMS::Key').map(([id]) => ({ 'Fn::GetAtt': [id, 'Arn'] }));
    expect(keys.length).toBeGreaterThanOrEqual(1);
    expect(deployed.KeyStateRule.Properties.EventPattern).toEqual({
      source: ['aws.kms'],
      'detail-type': ['AWS API Call via CloudTrail'],
      detail: { eventSource: ['kms.amazonaws.com'], eventName: ['DisableKey', 'ScheduleKeyDeletion', 'DisableKeyRotation'], resources: { ARN: keys } },
    });
    expect(alarms.KeyStateAlarm.Properties).toMatchObject({
      Namespace: 'AWS/Events',
      MetricName: 'TriggeredRules',
      Dimensions: [{ Name: 'RuleName', Value: { Ref: 'KeyStateRule' } }],
      Threshold: 1,
    });
    const lost = alarms.WebhookRuleDeliveryFailedAlarm.Properties.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric);
    expect(lost.map((m: any) => m.MetricName).sort()).toEqual(['FailedInvocations', 'InvocationsFailedToBeSentToDlq']);
    for (const m of lost) expect(m.Dimensions[0]).toEqual({ Name: 'EventBusName', Value: { Ref: 'EventBus' } });
  });

  it("keeps concurrency for the webhook sender, at least its queue mapping's", () => {
    const sender = deployed[functionId('webhooksDeliver')];
    const [, mapping] = ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => calledFunction(m.Properties.FunctionName) === functionId('webhooksDeliver'))!;
    expect(sender.Properties.ReservedConcurrentExecutions).toBe(20);
    expect(sender.Properties.ReservedConcurrentExecutions).toBeGreaterThanOrEqual(mapping.Properties.ScalingConfig.MaximumConcurrency);
    expect(refusal({ WEBHOOK_RESERVED_CONCURRENCY: '5' })).toMatch(/^ *WEBHOOK_RESERVED_CONCURRENCY: 5 is below 20, its queue mapping's maximumConcurrency/m);
  });

  it("serves every custom domain with TLS 1.3 and 1.2 with forward secrecy only (an enhanced policy), strict on the domain's name", () => {
    const domains = ofType('AWS::ApiGateway::DomainName');
    expect(domains).toHaveLength(4);
    for (const [id, d] of domains)
      expect(d.Properties, id).toMatchObject({ SecurityPolicy: 'SecurityPolicy_TLS13_1_2_PFS_PQ_2025_09', EndpointAccessMode: 'STRICT' });
  });

  it('retains every queue and the event archive, with what they hold, when the stack is removed or a change replaces them', () => {
    const kept = [...ofType('AWS::SQS::Queue'), ...ofType('AWS::Events::Archive')];
    expect(kept.length).toBeGreaterThanOrEqual(9);
    for (const [id, r] of kept) expect(r, id).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it("describes each console group whole (a YAML flow mapping cut the admin's at its first comma)", () => {
    const groups = Object.fromEntries(ofType('AWS::Cognito::UserPoolGroup').map(([, g]) => [g.Properties.GroupName, g.Properties.Description]));
    expect(groups).toEqual({
      viewer: 'Reads every page',
      operator: 'Reads, and takes the row actions (approve, cancel, withdraw, fund, post, void, redeliver)',
      admin: 'Reads, acts, creates and changes',
    });
  });
});

describe("the docs' numbers", () => {
  it("are the production template's, counted (npm run docs:numbers writes them)", () => {
    const values = numbers(packagedDir);
    for (const file of DOCS) {
      const doc = readFileSync(join(ROOT, file), 'utf8');
      expect(doc, file).toContain('<!-- n:');
      expect(disagreements(doc, values), file).toEqual([]);
    }
    console.log(
      `The production template: ${Object.entries(values)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  });
});
