import hljs from 'highlight.js/lib/common';
import { memo, useRef, useState, type ReactNode } from 'react';
import Markdown from 'react-markdown';
import { copyText } from '../copy';

export function CopyButton({ text, label }: { text: () => string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="link small copy"
      aria-label={label}
      onClick={() =>
        void copyText(text()).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1_200);
        })
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

function CodeBlock({ children }: { children: ReactNode }) {
  const pre = useRef<HTMLPreElement>(null);
  return (
    <div className="code-block">
      <CopyButton label="Copy code" text={() => pre.current?.textContent ?? ''} />
      <pre ref={pre}>{children}</pre>
    </div>
  );
}

/**
 * A message as Markdown. Code blocks get a copy button, and their highlighting once the message has
 * finished streaming, so a long answer never costs a frame per token.
 */
export const MessageBody = memo(function MessageBody({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <Markdown
      components={{
        a: ({ href, children }) => (
          <a href={href} target="_blank" rel="noreferrer noopener">
            {children}
          </a>
        ),
        pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
        code: ({ className, children }) => {
          const language = /language-([\w+-]+)/.exec(className ?? '')?.[1];
          if (streaming || !language || !hljs.getLanguage(language)) return <code className={className}>{children}</code>;
          const source = String(children).replace(/\n$/, '');
          // highlight.js escapes the source; its output is markup of spans only.
          return <code className={`hljs language-${language}`} dangerouslySetInnerHTML={{ __html: hljs.highlight(source, { language, ignoreIllegals: true }).value }} />;
        },
      }}
    >
      {text}
    </Markdown>
  );
});
