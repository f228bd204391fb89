import '../../lib/platform/config';
import { type RotationEvent, rotationStep } from '../../lib/platform/rotation';
import { observed } from '../../lib/platform/tracing';

// Secrets Manager's rotation function (infra/resources.yml, RotationSchedule): one step of a
// rotation of the Admin API's, the webhooks' or the consent page's secret, a tenant's or the
// deployment's (lib/platform/rotation.ts).
export const handler = observed((event: RotationEvent) => rotationStep(event));
