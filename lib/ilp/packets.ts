import { Errors, errorToIlpReject, type IlpReject } from 'ilp-packet';
import { config } from '../config';

// ILP rejects this node makes itself (triggered by its own address).
export const reject = (code: string, message: string): IlpReject => ({ code, message, triggeredBy: config.ILP_ADDRESS, data: Buffer.alloc(0) });

// F08 with the amounts a sender needs to size its next packet (both in the same units).
export const amountTooLarge = (received: bigint, maximum: bigint): IlpReject =>
  errorToIlpReject(
    config.ILP_ADDRESS,
    new Errors.AmountTooLargeError(`The packet's amount ${received} is above the most this link takes, ${maximum}`, {
      receivedAmount: received.toString(),
      maximumAmount: maximum.toString(),
    }),
  );
