import {
  AppAccountTokenMismatchError,
  MembershipError,
  NoSubscriptionError,
  ProductMismatchError,
  PurchaseNotFoundError,
  PurchaseOwnedElsewhereError,
  PushTokenRejectedError,
  SandboxNotAllowedError,
  SignatureRejectedError,
  StoreNotConfiguredError,
  StoreUnavailableError,
  UnknownProductError,
} from '@nestegg/membership';
import { AppError, BadRequestError, ConflictError, ServiceUnavailableError } from '../../../lib/errors.js';

/** Seconds a client should wait before retrying while the store is unreachable. */
const STORE_RETRY_AFTER_SECONDS = 30;

/** The problem a membership error is answered with; other errors pass through unchanged. */
export function problemFor(error: unknown): unknown {
  if (!(error instanceof MembershipError)) return error;
  if (error instanceof UnknownProductError) return new BadRequestError('UNKNOWN_PRODUCT', error.message);
  if (error instanceof PurchaseNotFoundError) return new BadRequestError('INVALID_PURCHASE', error.message);
  // A purchase whose signature does not verify is no purchase of this app (decision BL24).
  if (error instanceof SignatureRejectedError) return new BadRequestError('INVALID_PURCHASE', error.message);
  if (error instanceof AppAccountTokenMismatchError) {
    return new BadRequestError('APP_ACCOUNT_TOKEN_MISMATCH', error.message);
  }
  if (error instanceof SandboxNotAllowedError) return new AppError('SANDBOX_NOT_ALLOWED', error.message);
  if (error instanceof ProductMismatchError) return new BadRequestError('PRODUCT_MISMATCH', error.message);
  if (error instanceof PurchaseOwnedElsewhereError) return new ConflictError('PURCHASE_OWNED_ELSEWHERE', error.message);
  if (error instanceof NoSubscriptionError) return new ConflictError('NO_SUBSCRIPTION', error.message);
  if (error instanceof PushTokenRejectedError) return new AppError('INVALID_PUSH_TOKEN', error.message);
  if (error instanceof StoreNotConfiguredError)
    return new ServiceUnavailableError('STORE_NOT_CONFIGURED', error.message);
  if (error instanceof StoreUnavailableError) {
    return new ServiceUnavailableError(
      'STORE_UNAVAILABLE',
      'The app store cannot be reached right now. Try again later.',
      STORE_RETRY_AFTER_SECONDS,
    );
  }
  return error;
}

/** Runs a membership call, answering its errors as problems. */
export async function asProblems<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw problemFor(error);
  }
}
