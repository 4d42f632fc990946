/*
 * The preview of a workspace file or of a file sent with a message: highlighted text with line numbers, or an image,
 * with Attach to message.
 */

import hljs from 'highlight.js/lib/common';
import { useEffect, useState } from 'react';
import { rangeText, sizeText, type Attachment, type FilePeek } from '../../../shared/attachments';
import { errorMessage } from '../client';
import type { AppStore } from '../store';
import { Modal } from '../chrome/Modal';

/** Past this, text is shown plain: highlighting a quarter of a megabyte would hold the window up. */
const highlightLimitChars = 100_000;

/** highlight.js's language for a file name, when it knows one. */
function languageOf(path: string): string | null {
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return extension && hljs.getLanguage(extension) ? extension : null;
}

/** A file's content as a preview shows it: text with line numbers (from `firstLine`), highlighted; an image; or why not. */
export function PreviewBody({ path, content, firstLine = 1 }: { path: string; content: FilePeek['content']; firstLine?: number }) {
  switch (content.kind) {
    case 'binary':
      return <p className="muted">This is a binary file; it is not shown, and it cannot be attached.</p>;
    case 'too_large':
      return (
        <p className="muted">
          This file is larger than {sizeText(content.limit)}; it is not shown. Attach a part of it with a line range (@path#L1-200).
        </p>
      );
    case 'image':
      return <img className="preview-image" alt={path} src={`data:${content.mediaType};base64,${content.data}`} />;
    case 'text': {
      const lines = content.text.split('\n');
      const language = content.text.length <= highlightLimitChars ? languageOf(path) : null;
      return (
        <div className="preview-text" aria-label="File text">
          <pre className="preview-numbers" aria-hidden="true">
            {lines.map((_, index) => firstLine + index).join('\n')}
          </pre>
          {language ? (
            // highlight.js escapes the source; its output is markup of spans only.
            <pre className="preview-code">
              <code
                className="hljs"
                dangerouslySetInnerHTML={{ __html: hljs.highlight(content.text, { language, ignoreIllegals: true }).value }}
              />
            </pre>
          ) : (
            <pre className="preview-code">
              <code>{content.text}</code>
            </pre>
          )}
        </div>
      );
    }
  }
}

/** A read-only preview of a workspace file, read through main's link-safe reader, with "Attach to message". */
export function FilePreview({
  store,
  sessionId,
  path,
  onClose,
}: {
  store: AppStore;
  sessionId: string;
  path: string;
  onClose: () => void;
}) {
  const [peek, setPeek] = useState<FilePeek | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    store.call('workspace:read', { sessionId, path }).then(
      (result) => live && setPeek(result),
      (failure: unknown) => live && setError(errorMessage(failure)),
    );
    return () => {
      live = false;
    };
  }, [store, sessionId, path]);
  const attachable = peek !== null && (peek.content.kind === 'text' || peek.content.kind === 'image');
  return (
    <Modal title={`Preview of ${path}`} closeLabel="Close preview" className="file-preview" onClose={onClose}>
      <p className="muted small">
        {path}
        {peek && ` · ${sizeText(peek.size)}`} · read-only
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {peek && <PreviewBody path={peek.path} content={peek.content} />}
      <div className="row">
        <button
          type="button"
          className="primary"
          disabled={!attachable}
          onClick={() => {
            store.mention(sessionId, peek?.path ?? path);
            onClose();
          }}
        >
          Attach to message
        </button>
      </div>
    </Modal>
  );
}

/** How a chip names an attachment: its path, its line range, its size. */
export function attachmentLabel(attachment: Attachment): string {
  const range = attachment.kind === 'text' && attachment.range ? `#${rangeText(attachment.range)}` : '';
  return `${attachment.path}${range} · ${attachment.kind === 'image' ? 'image, ' : ''}${sizeText(attachment.size)}`;
}

/** The files sent with a message, as chips; a click shows what was sent, as it was sent. */
export function AttachmentChips({ attachments }: { attachments: readonly Attachment[] }) {
  const [shown, setShown] = useState<Attachment | null>(null);
  return (
    <div className="attachment-chips" aria-label="Attached files">
      {attachments.map((attachment, index) => (
        <button
          key={index}
          type="button"
          className={attachment.kind === 'text' && attachment.injection ? 'attachment-chip flagged' : 'attachment-chip'}
          title={
            attachment.kind === 'text' && attachment.injection
              ? `Signs of a prompt injection: ${attachment.injection.map((sign) => sign.explanation).join(' ')} The model was told to read it as data.`
              : 'Show what was attached'
          }
          onClick={() => setShown(attachment)}
        >
          {attachment.kind === 'text' && attachment.injection ? '⚠ ' : ''}
          {attachmentLabel(attachment)}
        </button>
      ))}
      {shown && (
        <Modal title={`Attached ${shown.path}`} closeLabel="Close attachment" className="file-preview" onClose={() => setShown(null)}>
          <p className="muted small">{attachmentLabel(shown)} · as sent with the message</p>
          <PreviewBody
            path={shown.path}
            content={
              shown.kind === 'text' ? { kind: 'text', text: shown.text } : { kind: 'image', mediaType: shown.mediaType, data: shown.data }
            }
            firstLine={shown.kind === 'text' ? (shown.range?.start ?? 1) : 1}
          />
        </Modal>
      )}
    </div>
  );
}
