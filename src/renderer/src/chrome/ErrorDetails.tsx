/*
 * What the system itself said of an error (an error code, a library's message), folded away under the plain words the
 * person reads, for whoever wants it.
 */

/** A "Details" disclosure with the system's own words; nothing when there are none. */
export function ErrorDetails({ detail }: { detail: string | undefined }) {
  if (!detail) return null;
  return (
    <details className="error-details small">
      <summary>Details</summary>
      <code>{detail}</code>
    </details>
  );
}
