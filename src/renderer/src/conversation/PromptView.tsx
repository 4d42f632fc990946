/*
 * The "What the model saw" dialog: the system prompt of one model call, part by part, with where each part came from
 * and its tokens.
 */

import { useEffect, useState } from 'react';
import type { AssembledPrompt, PromptPart, PromptPartKind } from '../../../shared/prompt';
import { errorMessage } from '../client';
import type { AppStore } from '../store';
import { CopyButton } from './MessageBody';
import { Modal } from '../chrome/Modal';

const kindLabels: Record<PromptPartKind, string> = {
  profile: 'Profile',
  environment: 'Environment',
  tools: 'Tools',
  instructions: 'Project instructions',
  memory: 'Memory',
};

function Part({ part }: { part: PromptPart }) {
  return (
    <details className="prompt-part" data-kind={part.kind}>
      <summary>
        <span className="prompt-part-kind">{kindLabels[part.kind]}</span>
        <span className="prompt-part-title">{part.title}</span>
        <span className="muted small">
          {part.tokens} tokens{part.budget > 0 ? ` of ${part.budget}` : ''}
          {part.cut ? ', cut to fit' : ''}
        </span>
      </summary>
      <p className="muted small">
        {part.kind === 'memory' ? `${part.source.charAt(0).toUpperCase()}${part.source.slice(1)}.` : `From ${part.source}.`}
      </p>
      <pre className="prompt-part-text">{part.text}</pre>
    </details>
  );
}

/**
 * What the model saw for one call: the whole system prompt as it was sent, part by part (the profile, the environment,
 * the tools by group, each instruction file and each memory, with where it came from and what it took of its budget),
 * what was left out and why, and the tools the request carried.
 */
export function PromptView({ store, promptId, onClose }: { store: AppStore; promptId: string; onClose: () => void }) {
  const [prompt, setPrompt] = useState<AssembledPrompt | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    store.call('prompt:get', { promptId }).then(
      (found) => live && setPrompt(found),
      (failure: unknown) => live && setError(errorMessage(failure)),
    );
    return () => {
      live = false;
    };
  }, [store, promptId]);
  const tokens = prompt?.parts.reduce((sum, part) => sum + part.tokens, 0) ?? 0;
  return (
    <Modal title="What the model saw" closeLabel="Close the prompt" className="prompt-view" onClose={onClose}>
      {error && (
        <p role="alert" className="message-error">
          {error}
        </p>
      )}
      {!prompt && !error && <p className="muted">Loading…</p>}
      {prompt && (
        <div className="prompt-view-body">
          <p className="small">
            The system prompt of this call: about {tokens} tokens of a {prompt.window}-token window, before the conversation.{' '}
            <CopyButton label="Copy the whole prompt" text={() => prompt.text} />
          </p>
          {prompt.parts.map((part, index) => (
            <Part key={index} part={part} />
          ))}
          {prompt.notes.length > 0 && (
            <section aria-label="Left out">
              <h3>Left out</h3>
              <ul className="small">
                {prompt.notes.map((note) => (
                  <li key={note}>{note}</li>
                ))}
              </ul>
            </section>
          )}
          <p className="small muted">
            Tools sent with it: {prompt.tools.length > 0 ? prompt.tools.join(', ') : 'none'}. The conversation followed, as the Context
            figures say.
          </p>
        </div>
      )}
    </Modal>
  );
}
