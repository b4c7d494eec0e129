export type StatementErrorCode =
  | 'UNSUPPORTED_FORMAT'
  | 'LEGACY_XLS'
  | 'TOO_LARGE'
  | 'TOO_MANY_ROWS'
  | 'ZIP_BOMB'
  | 'BINARY_FILE'
  | 'BROKEN_ENCODING'
  | 'EMPTY'
  | 'NO_HEADER';

/** A file that cannot be read at all; the message says what is wrong and what to do. */
export class StatementError extends Error {
  override readonly name = 'StatementError';

  constructor(
    readonly code: StatementErrorCode,
    message: string,
  ) {
    super(message);
  }
}
