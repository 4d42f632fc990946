/** How much of a tool's output the model is given, and how much is kept on disk. */
export const outputLimits = { modelChars: 16_000, diskBytes: 1_048_576 } as const;

/**
 * Cuts long output for the model: the head and the tail stay, the middle is replaced by a marker
 * that says how much was left out and that the full output is in the tool card.
 */
export function truncateForModel(output: string, maxChars: number = outputLimits.modelChars): { text: string; truncated: boolean } {
  if (output.length <= maxChars) return { text: output, truncated: false };
  const keep = Math.floor((maxChars - 200) / 2);
  const omitted = output.length - keep * 2;
  return {
    text: `${output.slice(0, keep)}\n\n[… ${omitted} characters omitted here; the full output is kept in the tool card …]\n\n${output.slice(-keep)}`,
    truncated: true,
  };
}

/** Keeps at most `maxBytes` of output for disk, cut on a character boundary. */
export function capForDisk(output: string, maxBytes: number = outputLimits.diskBytes): { text: string; bytes: number; capped: boolean } {
  const bytes = Buffer.byteLength(output, 'utf8');
  if (bytes <= maxBytes) return { text: output, bytes, capped: false };
  const text = Buffer.from(output, 'utf8')
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return { text: `${text}\n[… output capped at ${maxBytes} bytes …]`, bytes, capped: true };
}
