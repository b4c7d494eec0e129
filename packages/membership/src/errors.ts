/**
 * What can go wrong with a store purchase, independent of HTTP: the api maps each to a problem code,
 * the worker to "retry later" or "keep and report".
 */
export class MembershipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The store cannot be asked: network, timeout, 5xx, an answer we cannot read. Worth a retry. */
export class StoreUnavailableError extends MembershipError {}

/** The store is not configured in this process. */
export class StoreNotConfiguredError extends MembershipError {
  constructor() {
    super('The app store is not configured.');
  }
}

/** The store does not know the purchase token (or it belongs to another app). */
export class PurchaseNotFoundError extends MembershipError {
  constructor() {
    super('The store does not know this purchase.');
  }
}

/** The product is not one of the configured subscription products. */
export class UnknownProductError extends MembershipError {
  constructor(readonly productId: string) {
    super(`"${productId}" is not a subscription product of this app.`);
  }
}

/** The store says the token is for another product than the one the client named. */
export class ProductMismatchError extends MembershipError {
  constructor() {
    super('The purchase is for another product than the one sent.');
  }
}

/** The purchase was already applied to another member. */
export class PurchaseOwnedElsewhereError extends MembershipError {
  constructor() {
    super('This purchase belongs to another account.');
  }
}

/** The member has no subscription that this operation could act on. */
export class NoSubscriptionError extends MembershipError {
  constructor(message = 'There is no active subscription.') {
    super(message);
  }
}

/** Signed store data (an App Store JWS) whose signature, certificate chain or app does not verify. */
export class SignatureRejectedError extends MembershipError {
  constructor(readonly reason: string) {
    super(`The store's signature does not verify: ${reason}.`);
  }
}

/** An App Store transaction bought without this member's `appAccountToken` (the app did not pass it, or another's). */
export class AppAccountTokenMismatchError extends MembershipError {
  constructor() {
    super("The transaction does not carry this member's appAccountToken.");
  }
}

/** A sandbox purchase where the setting does not let sandbox purchases grant PREMIUM. */
export class SandboxNotAllowedError extends MembershipError {
  constructor() {
    super('Sandbox purchases do not grant PREMIUM on this server.');
  }
}
