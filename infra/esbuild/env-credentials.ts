// Deployed bundles take their AWS credentials from the environment, as Lambda provides them, and so
// leave out the SDK's default provider chain (SSO, profiles, IMDS, STS: a quarter of a client's
// size). serverless.yml aliases @aws-sdk/credential-provider-node to this file; the local run,
// which is not bundled, keeps the full chain.
export { fromEnv as defaultProvider } from '@aws-sdk/credential-provider-env';
