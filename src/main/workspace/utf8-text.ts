/*
 * Strict UTF-8 decoding of a file's bytes, and the refusal to edit a file that is not UTF-8 text.
 */

import { WorkbenchError } from '../../shared/errors';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of UTF-8 bytes, or null when some bytes are not UTF-8 and decoding would replace them (with U+FFFD). */
export function losslessText(data: Buffer): string | null {
  try {
    return strictUtf8.decode(data);
  } catch {
    return null;
  }
}

/** The refusal for an edit of a file that is not UTF-8 text: writing back its decoded text would change bytes elsewhere in it. */
export function notUtf8Error(relative: string): WorkbenchError {
  return new WorkbenchError(
    'invalid_input',
    `${relative} is not UTF-8 text (some of its bytes are not valid UTF-8), so it cannot be edited as text: writing it back would change those bytes. Leave it as it is, or replace it whole with write_file only if that is really meant.`,
  );
}
