/*
 * Export of the selected session: secrets redacted by default, or raw when the person asks for it.
 */

import { useLifetime } from '../disposables';
import { download } from '../download';
import type { AppStore } from '../store';

/**
 * Export saves the session with what looks like a secret (API keys, tokens, private keys, `.env` values) redacted, and
 * says how many were; Export raw saves it as it is.
 */
export function ExportControl({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const lifetime = useLifetime();
  const exportSession = (raw: boolean): void =>
    void store.attempt(async () => {
      const { fileName, document: text, redacted } = await store.call('session:export', { sessionId, raw });
      download(lifetime.current, fileName, text);
      if (redacted > 0)
        store.notify({
          kind: 'info',
          text: `Exported with ${redacted} ${redacted === 1 ? 'secret' : 'secrets'} redacted (API keys, tokens, private keys). Use Export raw to keep them.`,
        });
    });
  return (
    <>
      <button type="button" onClick={() => exportSession(false)} title="Save this session as a file, with secrets redacted">
        Export
      </button>
      <button
        type="button"
        onClick={() => exportSession(true)}
        title="Save this session as a file as it is, API keys, tokens and private keys included"
      >
        Export raw
      </button>
    </>
  );
}
